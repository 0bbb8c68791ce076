import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";

type SerializerFactory = ReturnType<typeof SerializerSelector>;

const fastifysOwn = SerializerSelector();

/**
 * Fastify's own response serializers, each compiled on the first answer of its route and status
 * rather than for every route at start: most routes are never called (ANALYSIS item 37).
 */
export const lazySerializers: SerializerFactory = (externalSchemas, options) => {
  const compile = fastifysOwn(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc) => {
      serialize ??= compile(route);
      return serialize(doc);
    };
  };
};
