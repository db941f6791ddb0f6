// SPDX-License-Identifier: Apache-2.0
// Files kpol reads at run time from its own package (the demo, the built editor), found from
// the package's root folder. From source this module sits in src/core/, two folders below the root;
// in the build every module shares one folder, dist/cli/, and src/edge/cli/build.mjs defines
// KPOL_BUILD_ROOT as the way up from there. (typeof of an undeclared name is 'undefined'.)
import { fileURLToPath } from 'node:url';

declare const KPOL_BUILD_ROOT: string | undefined;

const ROOT = new URL(typeof KPOL_BUILD_ROOT === 'string' ? KPOL_BUILD_ROOT : '../../', import.meta.url);

/** The absolute path of `rel` (a path inside the package, `/`-separated) in the package. */
export const packagePath = (rel: string): string => fileURLToPath(new URL(rel, ROOT));
