/** Vitest setup file (every test file): removes the directories `tempDir` made. */
import { afterAll, afterEach, beforeEach } from 'vitest';
import { fileFinished, testFinished, testStarted } from './temp.js';

beforeEach(testStarted);
afterEach(testFinished);
afterAll(fileFinished);
