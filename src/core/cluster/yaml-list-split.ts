// SPDX-License-Identifier: Apache-2.0
// Splits a large YAML `List` (what `kubectl get -o yaml` prints) into its items' texts, so each
// item is composed and converted alone: the YAML library's document tree costs ~50× the text
// (a 86 MB, 100,000-pod snapshot ran out of a 4 GB heap), one item's tree costs nothing.
// Only the plain shape is split: one document, a top-level `items:` block sequence, no anchors,
// aliases or tags anywhere (they could tie items together); anything else is parsed whole.

export interface SplitList {
  /** The document with the items' lines blanked and `items: []` in place: same line numbers. */
  header: string;
  /** Where each item is (offsets and first line, 1-based): texts are cut one at a time by itemText. */
  items: { start: number; end: number; line: number }[];
  /** An item's text with its `- ` indicator blanked, so columns stay as in the file. */
  itemText(item: { start: number; end: number }): string;
}

// A `&`, `*` or `!` that could start an anchor, alias or tag; conservative (a quoted "a *b" counts too).
const MAYBE_NODE_PROPERTY = /(^|[\s,[{])[&*!][^\s,\]}]/m;
const DOCUMENT_MARKER = /^(---|\.\.\.)(\s|$)/m;

export function splitYamlList(text: string): SplitList | undefined {
  if (MAYBE_NODE_PROPERTY.test(text)) return undefined;
  // one leading `---` is allowed (kubectl does not print one, hand-made files often start so)
  const body = text.startsWith('---\n') ? text.slice(4) : text;
  if (DOCUMENT_MARKER.test(body)) return undefined;
  const itemsAt = /^items:[ \t]*\r?\n/m.exec(text);
  if (!itemsAt) return undefined;
  const blockStart = itemsAt.index + itemsAt[0].length;
  // the sequence's indentation: that of the first non-blank, non-comment line after `items:`
  const first = /^( *)- /m.exec(text.slice(blockStart, blockStart + 10_000));
  if (!first || text.slice(blockStart, blockStart + first.index).trim() !== '') return undefined;
  const indent = first[1].length;
  const marker = ' '.repeat(indent) + '- ';
  const items: { start: number; end: number; line: number }[] = [];
  // 1-based line of the block's first line (what precedes `items:` is a few lines)
  let line = text.slice(0, blockStart).split('\n').length;
  let pos = blockStart;
  let itemStart = -1;
  let itemLine = 0;
  let blockEnd = text.length;
  const close = (end: number): void => {
    if (itemStart >= 0) items.push({ start: itemStart, end, line: itemLine });
  };
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const end = nl < 0 ? text.length : nl + 1;
    const l = text.slice(pos, Math.min(end, pos + marker.length + 1));
    if (text.startsWith(marker, pos)) {
      close(pos);
      itemStart = pos;
      itemLine = line;
    } else {
      // a line that is neither blank nor a comment and is indented no deeper than the marker ends the block
      const content = /^( *)(\S)/.exec(text.slice(pos, Math.min(end, pos + indent + 2)));
      if (content && content[2] !== '#' && content[1].length <= indent && !(l.trim() === '')) {
        blockEnd = pos;
        break;
      }
    }
    pos = end;
    line++;
  }
  close(blockEnd);
  if (items.length === 0) return undefined;
  let blankLines = 0;
  for (let i = text.indexOf('\n', blockStart); i >= 0 && i < blockEnd; i = text.indexOf('\n', i + 1)) blankLines++;
  const header = `${text.slice(0, itemsAt.index)}items: []\n${'\n'.repeat(blankLines)}${text.slice(blockEnd)}`;
  const itemText = (item: { start: number; end: number }): string =>
    ' '.repeat(indent + 2) + text.slice(item.start + marker.length, item.end);
  return { header, items, itemText };
}
