import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";

type SerializerFactory = ReturnType<typeof SerializerSelector>;

const fastifysOwn = SerializerSelector();

/**
 * Fastify's own response serializers (fast-json-stringify, with the same shared schemas and
 * options), each compiled on the first answer of its route and status instead of for every
 * route when the service starts. The delivery path answers ahead of Fastify, and most
 * management routes are never called in a process's life, while compiling them all held ~4.5 MB
 * of the event loop's heap for good (bench/ANALYSIS.md, section 37).
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
