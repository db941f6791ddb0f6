// SPDX-License-Identifier: Apache-2.0
import { onRealServer } from './scenarios.js';

await onRealServer(() => import('../../reconciler/consolidation.test.js'));
