import type { LoggerOptions } from 'pino';

/**
 * pino `redact` paths: credentials never reach a log line, whatever object carries them (request
 * headers, an error's context, a config dump). Values become `[redacted]`.
 */
export const LOG_REDACTION: NonNullable<LoggerOptions['redact']> = {
  paths: [
    'authorization',
    '*.authorization',
    'headers.authorization',
    '*.headers.authorization',
    'req.headers.authorization',
    'token',
    '*.token',
    'adminToken',
    '*.adminToken',
    'jwtSecret',
    '*.jwtSecret',
    'ADMIN_TOKEN',
    '*.ADMIN_TOKEN',
    'JWT_SECRET',
    '*.JWT_SECRET',
    'password',
    '*.password',
  ],
  censor: '[redacted]',
};
