// SPDX-License-Identifier: Apache-2.0
// Large YAML Lists are parsed item by item (issue 13, defect 6: a 100,000-pod YAML snapshot ran
// out of a 4 GB heap): the values and the error locations must be those of a whole parse.
import { describe, expect, it } from 'vitest';
import { LineCounter, parseAllDocuments, stringify } from 'yaml';
import { parseSnapshotText, SPLIT_YAML_ABOVE } from '../../src/core/cluster/snapshot-parse.js';
import { splitYamlList } from '../../src/core/cluster/yaml-list-split.js';
import { makePool, toList } from '../support/cluster-builder.js';

const list = toList(makePool('default', 300, 10)); // ~3,300 objects, above SPLIT_YAML_ABOVE as YAML
// items at column 0
const kubectlStyle = (text: string): string => text.replace(/^ {2}- /gm, '- ').replace(/^ {4}/gm, '  ');

describe('large YAML Lists, item by item', () => {
  it.each([
    ['yaml.stringify (items indented)', stringify(list)],
    ['kubectl (items at column 0)', `# kubectl get -o yaml\n${kubectlStyle(stringify(list))}`],
  ])('%s: the same values as JSON', (_, text) => {
    expect(text.length).toBeGreaterThan(SPLIT_YAML_ABOVE);
    expect(splitYamlList(text)?.items).toHaveLength(list.items.length);
    const { documents, problems } = parseSnapshotText(text);
    expect(problems).toEqual([]);
    expect(documents).toEqual([JSON.parse(JSON.stringify(list))]);
  });

  it('locates a syntax error where a whole parse does', () => {
    const lines = stringify(list).split('\n');
    const at = Math.floor(lines.length * 0.7);
    const target = lines.findIndex((l, i) => i > at && /^ {6}name: /.test(l));
    lines[target] = lines[target].replace('name: ', 'name: [unclosed ');
    const text = lines.join('\n');
    const lineCounter = new LineCounter();
    const whole = parseAllDocuments(text, { lineCounter, prettyErrors: true })[0].errors[0];
    const { problems } = parseSnapshotText(text);
    expect(problems.length).toBeGreaterThan(0);
    expect({ line: problems[0].line, col: problems[0].col }).toEqual(whole.linePos![0]);
    expect(problems[0].line - (target + 1)).toBeLessThanOrEqual(1); // at, or just after, the broken line
  });

  it('parses whole anything it cannot split safely: anchors, several documents', () => {
    const text = stringify(list);
    expect(splitYamlList(`x: &a 1\n${text}`)).toBeUndefined();
    expect(splitYamlList(`${text}---\nkind: Node\n`)).toBeUndefined();
  });
});
