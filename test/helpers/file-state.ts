/**
 * Vitest setup file (every test file). A worker runs many files in one process with its modules
 * kept (`isolate: false`), so process-wide state one file leaves must not reach the next: the
 * redaction registry (a password registered by one file would scrub another file's expected output).
 */
import { afterAll } from 'vitest';
import { forgetRegisteredSecrets } from '../../src/model/secret.js';

afterAll(forgetRegisteredSecrets);
