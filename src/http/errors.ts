/** The one error envelope: `{error: <stable_snake_code>, message, ...extra}`. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export const invalidRequest = (field: string, message: string): ApiError =>
  new ApiError(400, 'invalid_request', message, { field });

export const notFound = (code: string, message: string): ApiError => new ApiError(404, code, message);

/** Refusals by a gate carry their reasons as values. */
export const blocked = (statusCode: number, code: string, blockReasons: string[], message: string): ApiError =>
  new ApiError(statusCode, code, message, { blockReasons });
