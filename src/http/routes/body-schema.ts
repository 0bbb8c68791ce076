// The builders of the API's success body schemas: closed objects, nullable values, enums.
import { Type, type Static, type TSchema } from "typebox";

/** A reference to a named schema. */
export const ref = <T extends TSchema>(schema: T) => Type.Unsafe<Static<T>>({ $ref: `${String(idOf(schema))}#` });

/** A schema's `$id`, when it is a named one. */
export const idOf = (schema: TSchema): string | undefined => (schema as { $id?: string }).$id;

/** A value or null, as one JSON type list (`["string", "null"]`). */
export function Nullable<T extends TSchema>(t: T) {
  const s = t as unknown as { type?: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({ ...t, type: [s.type, "null"], ...(s.enum && { enum: [...s.enum, null] }) });
}

/** One of fixed strings. */
export const Enum = <const V extends string>(values: readonly V[], description?: string) =>
  Type.Unsafe<V>({ type: "string", enum: [...values], ...(description && { description }) });

export const Time = Type.String({ format: "date-time" });

export const MaybeTime = Nullable(Time);

export const Str = Type.String();

export const MaybeStr = Nullable(Type.String());

export const Int = Type.Integer();

export const Obj = <P extends Record<string, TSchema>>(properties: P, options: { $id?: string; description?: string } = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

export const StrList = Type.Array(Str);

export const StrMap = Type.Record(Type.String(), Type.String());
