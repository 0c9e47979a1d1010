/** Whether a host name or address names this machine only (loopback), for the HTTP server and upstream URLs. */

/** Whether an address names this machine only. */
export function isLoopbackName(hostname: string): boolean {
  const bare = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(?:\.\d{1,3}){3}$/.test(bare);
}
