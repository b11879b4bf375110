// The ports a shell composes the app with: the clock (and a wait on it) and the logger.
export { sleep, systemClock, type Clock, type Logger } from '../core/ports';
