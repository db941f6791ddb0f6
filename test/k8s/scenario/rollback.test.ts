// SPDX-License-Identifier: Apache-2.0
import { onBothServers } from './scenarios.js';

await onBothServers('rollback');
