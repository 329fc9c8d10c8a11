import { isDeepStrictEqual } from 'node:util';
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';
import { ResponseSerializationError, serializerCompiler } from 'fastify-type-provider-zod';
import { type ZodType, z } from 'zod';

type Compiler = FastifySerializerCompiler<ZodType> &
  ((...args: Parameters<FastifySchemaCompiler<ZodType>>) => (data: unknown) => string);

const plainJson = () => (data: unknown) => JSON.stringify(data);

/**
 * How answers become JSON (docs/performance.md, "Answers"). Presenters build every
 * answer in its schema's shape, and TypeScript holds them to it, so an answer is written as it is: encoding
 * it through its zod schema again was 13 % of the CPU of an audit page request (bench/README.md).
 *
 * Where answers are checked (`check`: the test suite, or CADRE_CHECK_RESPONSES), each is also encoded
 * through its schema and must come out the same: a field the schema does not have, or a value it would
 * refuse or change, fails the request with a 500 that names the route. So, for every answer the suite
 * produces, what is written is exactly what the schema allows; the bytes are the unchecked ones, in
 * tests as in production.
 */
export function responseSerializer(check: boolean): Compiler {
  if (!check) return plainJson;
  return (route) => {
    const encode = serializerCompiler(route);
    return (data) => {
      const plain = JSON.stringify(data);
      const encoded = encode(data);
      if (plain !== encoded && !isDeepStrictEqual(JSON.parse(plain), JSON.parse(encoded))) {
        const message = `written ${plain}, but the schema encodes ${encoded}`;
        const cause = new z.ZodError([{ code: 'custom', message, path: [], input: data }]);
        throw new ResponseSerializationError(route.method, route.url, { cause });
      }
      return plain;
    };
  };
}
