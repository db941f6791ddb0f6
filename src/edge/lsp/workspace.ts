// SPDX-License-Identifier: Apache-2.0
// The .kpol files of the editor's workspace folders that are not open: `kpol check` checks a
// repository's policies together (a NodePool governed twice, a policy name used twice), so an
// open file is checked with its closed neighbours too, read from disk. Their own diagnostics are
// not published (an editor shows problems of open files); they only take part in the check.
//
// The list of files is made when the client initializes and again when it reports a watched
// file created, changed or deleted; a listed file's text is read again whenever its size or
// modification time changed, so an edit made outside the editor counts at the next check.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** More files than a policy repository has: past it the scan stops (and says so once). */
export const MAX_WORKSPACE_FILES = 2000;
/** Larger files are not policies; `kpol check` would refuse them too. */
const MAX_FILE_BYTES = 1 << 20;

export interface WorkspaceFile {
  uri: string;
  fileName: string;
  text: string;
}

interface Cached extends WorkspaceFile {
  stamp: string;
}

export class Workspace {
  private roots: string[] = [];
  private paths: string[] = [];
  private readonly cache = new Map<string, Cached>();
  /** Set when a scan stopped at MAX_WORKSPACE_FILES. */
  truncated = false;

  /** Lists the .kpol files below `roots` (folders and dot-folders such as .git and node_modules skipped). */
  scan(roots: readonly string[] = this.roots): void {
    this.roots = [...roots];
    const found: string[] = [];
    this.truncated = false;
    const stack = [...roots];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // gone or unreadable: nothing to check there
      }
      for (const e of entries) {
        if (e.name.startsWith('.') || e.name === 'node_modules') continue;
        const path = join(dir, e.name);
        if (e.isDirectory()) stack.push(path);
        else if (e.isFile() && e.name.endsWith('.kpol')) {
          if (found.length >= MAX_WORKSPACE_FILES) {
            this.truncated = true;
            stack.length = 0;
            break;
          }
          found.push(path);
        }
      }
    }
    this.paths = found.sort();
    const listed = new Set(found);
    for (const p of [...this.cache.keys()]) if (!listed.has(p)) this.cache.delete(p);
  }

  /** The listed files as they are on disk now, except those `isOpen` (the editor's text wins). */
  files(isOpen: (uri: string) => boolean): WorkspaceFile[] {
    const out: WorkspaceFile[] = [];
    for (const path of this.paths) {
      const uri = pathToFileURL(path).href;
      if (isOpen(uri)) continue;
      const file = this.read(path, uri);
      if (file) out.push(file);
    }
    return out;
  }

  private read(path: string, uri: string): WorkspaceFile | undefined {
    let stamp: string;
    try {
      const st = statSync(path);
      if (st.size > MAX_FILE_BYTES) return undefined;
      stamp = `${st.size}:${st.mtimeMs}`;
    } catch {
      this.cache.delete(path);
      return undefined;
    }
    const hit = this.cache.get(path);
    if (hit?.stamp === stamp) return hit;
    try {
      const file = { uri, fileName: path, text: readFileSync(path, 'utf8'), stamp };
      this.cache.set(path, file);
      return file;
    } catch {
      return undefined;
    }
  }
}
