// The one promise-chain mutex (one queue, or one queue per key), for a shell that orders its own work.
export { serial, serialByKey } from '../core/serial';
