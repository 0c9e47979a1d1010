/**
 * Tenants of cordon's MCP server: whose learnt data (the result types its runs taught) a request adds
 * to and is shown. Until clients are authenticated, a tenant is a connection: the stdio client, or one
 * HTTP session. A server that knows who calls can name tenants from the request instead, with its own
 * {@link TenantOf}.
 */

/** A tenant: an object (a connection; what it owns goes with it) or a name (kept while there is room). */
export type TenantKey = object | string;

/** What the tenant of a request is told from. */
interface TenantSource {
  /** The connection the request came on: one object per stdio client or HTTP session. */
  readonly connection: object;
}

/** Names the tenant of a request. */
export type TenantOf = (source: TenantSource) => TenantKey;

/** The default: each connection (the stdio client, an HTTP session) is a tenant of its own. */
export const tenantPerConnection: TenantOf = ({ connection }) => connection;
