// The config folder of a CLI run that names none: a temporary one per test process, so a command
// that writes the data folder (`send` records in the send log) never touches the real one.
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TEST_HOME = join(tmpdir(), `cc-test-home-${process.pid}`);
