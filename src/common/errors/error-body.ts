import { STATUS_CODES } from 'node:http';

export interface FieldError {
  field: string;
  message: string;
}

/** Service contract section 4: the one error body of the API. */
export interface ErrorBody {
  timestamp: string;
  status: number;
  error: string;
  message: string;
  path: string;
  requestId: string;
  errors?: FieldError[];
}

export function errorBody(
  status: number,
  message: string,
  path: string,
  requestId: string,
  errors?: FieldError[],
): ErrorBody {
  return {
    timestamp: new Date().toISOString(),
    status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    path,
    requestId,
    ...(errors ? { errors } : {}),
  };
}
