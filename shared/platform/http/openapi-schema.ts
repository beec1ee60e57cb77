import * as v from 'valibot';

/** The OpenAPI document itself, checked only for being one. */
export const openApiDocument = v.looseObject({ openapi: v.string(), info: v.looseObject({ title: v.string() }), paths: v.record(v.string(), v.unknown()) });
