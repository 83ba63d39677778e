export * from "./client";
export * from "./errors";
export * from "./paging";
export * as schemas from "./schemas";
export type { TransportOptions, RawResponse } from "./transport";
export type { RetryOptions } from "./retry";
