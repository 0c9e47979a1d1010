/**
 * The parts of the Standard Schema and Standard JSON Schema interfaces (standardschema.dev) that cordon
 * reads, written out here so that the published types need no package of their own: any library that
 * implements the spec (zod 4, Valibot, ArkType...) fits them structurally.
 */

/** A schema that validates: the `~standard` property of the Standard Schema spec, version 1. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaProps<Input, Output>;
}

/** The `~standard` property of a Standard Schema. */
interface StandardSchemaProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/** What `validate` returns: the value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardIssue[] };

/** One problem a Standard Schema found, with where it is. */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** A schema that can describe itself as JSON Schema: the Standard JSON Schema spec, version 1. */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly jsonSchema: StandardJSONSchemaConverter;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** Produces JSON Schema for a schema's input or output side. */
export interface StandardJSONSchemaConverter {
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  readonly output: (options: { readonly target: string }) => Record<string, unknown>;
}

/** The type a Standard Schema (or Standard JSON Schema) produces. */
export type InferStandardOutput<Schema> = Schema extends {
  readonly "~standard": { readonly types?: { readonly output: infer Output } | undefined };
}
  ? Output
  : unknown;
