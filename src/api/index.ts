export * from "./client";
export * from "./errors";
export { ALLOW_INSECURE_HTTP_ENV, InsecureHttpError, isLoopbackHost } from "./insecure-http";
export * from "./paging";
export * as schemas from "./schemas";
export type { TransportOptions, RawResponse } from "./transport";
export type { RetryOptions } from "./retry";
