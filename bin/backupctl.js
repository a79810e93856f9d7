#!/usr/bin/env node
// Launcher: everything lives in the bundle under dist/.
import { cli } from '../dist/main.js';

await cli();
