// SPDX-License-Identifier: Apache-2.0
// The progress of the k8s/karpenter builds: the scripts' own lines pass through, Go's package
// and download lines are counted, errors are shown, and the periodic line names the elapsed
// time, the step and how far it has got.
import { describe, expect, it } from 'vitest';
import { BuildProgress, describeStep, progressEveryMs } from './build-progress.js';

describe('build progress', () => {
  it('names a step by its go command and targets', () => {
    expect(
      describeStep(
        '/usr/local/go/bin/go build -v -trimpath -ldflags -s -w -X ' +
          'k8s.io/component-base/version.gitVersion=v1.36.3 -o /root/.cache/kpol/k8s-v1.36.3/bin/ ' +
          'k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl',
      ),
    ).toBe('go build kube-apiserver, kubectl');
    expect(describeStep('/usr/local/go/bin/go mod download k8s.io/kubernetes@v1.36.3')).toBe(
      'go mod download kubernetes',
    );
    expect(describeStep('go install -v -trimpath -ldflags -s -w sigs.k8s.io/kwok/cmd/kwok@v0.8.0')).toBe(
      'go install kwok',
    );
    expect(describeStep('/usr/local/go/bin/go mod tidy')).toBe('go mod tidy');
  });

  it('passes the script’s lines, counts Go’s, shows errors, and sums up', () => {
    let now = 1_000_000;
    const p = new BuildProgress('k8s-build', () => now);
    expect(p.line('k8s-build: building Kubernetes v1.36.3 with go version go1.26.8 linux/amd64')).toEqual([
      'k8s-build: building Kubernetes v1.36.3 with go version go1.26.8 linux/amd64',
    ]);
    expect(
      p.line('k8s-build: go build: up to 2619 packages to compile for 4 commands (cached ones are skipped)'),
    ).toHaveLength(1);
    expect(
      p.line(
        'k8s-build: $ /usr/local/go/bin/go build -v -trimpath -o /c/bin/ ' +
          'k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl',
      ),
    ).toHaveLength(1);
    expect(p.line('go: downloading github.com/spf13/cobra v1.9.1')).toEqual([]);
    expect(p.line('internal/goarch')).toEqual([]);
    expect(p.line('k8s.io/apimachinery/pkg/util/sets')).toEqual([]);
    expect(p.line('# k8s.io/broken')).toEqual(['# k8s.io/broken']);
    expect(p.line('broken.go:3:1: syntax error')).toEqual(['broken.go:3:1: syntax error']);
    now += 272_000;
    expect(p.summary()).toBe(
      'k8s-build: still building, 4:32 elapsed; step: go build kube-apiserver, kubectl, 2 of at ' +
        'most 2619 packages compiled (latest k8s.io/apimachinery/pkg/util/sets), 1 modules ' +
        'downloaded',
    );
    // A new step starts its counts afresh.
    p.line('k8s-build: $ /usr/local/go/bin/go build -v -trimpath -o /c/bin/etcd go.etcd.io/etcd/server/v3');
    expect(p.summary()).toBe('k8s-build: still building, 4:32 elapsed; step: go build etcd');
  });

  it('prints every 30 s unless KPOL_BUILD_PROGRESS_SECONDS says otherwise', () => {
    expect(progressEveryMs({})).toBe(30_000);
    expect(progressEveryMs({ KPOL_BUILD_PROGRESS_SECONDS: '2' })).toBe(2000);
    expect(progressEveryMs({ KPOL_BUILD_PROGRESS_SECONDS: 'x' })).toBe(30_000);
  });
});
