// Errors in people's words: the shared advice (src-shared/error-advice.ts), read by the screens.
export {
  capitalized,
  describeError,
  errorLine,
  errorText,
  rateLimitWords,
  type ErrorContext,
} from '../../../src-shared/error-advice';
