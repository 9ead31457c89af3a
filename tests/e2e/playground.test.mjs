// End-to-end tests of the built playground in the system Chromium (playwright-core, no browser
// download). Run by scripts/test-web.sh, which builds dist/playground, serves it and sets URL.
// Expected outcomes are the real kube-scheduler's (tests/scenarios/*/expected-1.37.jsonl for the default, newest release) or follow
// from upstream semantics stated in the fixtures' comments; screenshots go to ARTIFACTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const URL = process.env.URL || 'http://127.0.0.1:8080/';
const ARTIFACTS = process.env.ARTIFACTS || new globalThis.URL('./artifacts/', import.meta.url).pathname;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
mkdirSync(ARTIFACTS, { recursive: true });

let browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});
after(async () => { await browser?.close(); });

/** Marks the first-visit welcome as seen in `context` (every test but the welcome's own). */
async function seenWelcome(context) {
  await context.addInitScript(() => localStorage.setItem('spreadlab.playground.welcomed', '1'));
}

/** A fresh page (own storage) on the app, with page errors collected. */
async function open(hash = '') {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  await seenWelcome(context);
  const page = await context.newPage();
  // Generous: CI shares two cores with other builds.
  page.setDefaultTimeout(90_000);
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(URL + hash);
  await page.waitForSelector('#summary[data-busy="false"]');
  return page;
}

/** Waits until the debounced re-simulation has run. */
async function settled(page) {
  await page.waitForSelector('#summary[data-busy="false"]');
}

/** Milliseconds from pressing `key` (the page's keydown) to the first frame after the summary
 * shows the result of that keystroke's text (`data-revision` moves). */
async function keystrokeToResult(page, key) {
  await page.evaluate(() => {
    const summary = document.querySelector('#summary');
    const shown = summary.dataset.revision;
    window.keystrokeResult = new Promise((resolve) => {
      let start = null;
      document.addEventListener('keydown', () => { start = performance.now(); }, { capture: true, once: true });
      const observer = new MutationObserver(() => {
        if (start !== null && summary.dataset.revision !== shown && summary.dataset.busy === 'false') {
          observer.disconnect();
          requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
        }
      });
      observer.observe(summary, { attributes: true });
    });
  });
  await page.keyboard.press(key);
  return page.evaluate(() => window.keystrokeResult);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round(sorted[Math.floor(sorted.length / 2)] * 10) / 10;
}

async function loadExample(page, id) {
  await page.selectOption('#example', id);
  await settled(page);
}

/** Waits until localStorage holds `text` (the debounced save has run). */
async function savedText(page, text) {
  await page.waitForFunction(
    (t) => localStorage.getItem('spreadlab.playground.text') === t, text);
}

const shot = (page, name) => page.screenshot({ path: `${ARTIFACTS}/${name}.png` });

/** The editor's text (the code editor, www/editor). */
const editorText = (page) => page.evaluate(() => window.spreadlabEditor.text());

/** Replaces the editor's text as a paste does (one edit; typing a big text key by key is slow). */
async function paste(page, text) {
  await page.evaluate((t) => window.spreadlabEditor.paste(t), text);
}

test('an example shows the Pending replica and the exact scheduler message', async () => {
  const page = await open();
  await loadExample(page, 'gpu-three-zones-one-full');
  assert.equal(await page.locator('#pending .chip').count(), 1);
  await page.locator('#pending .chip').click();
  const message = await page.textContent('#pod-message-text');
  // tests/scenarios/gpu-three-zones-one-full/expected-1.37.jsonl: the playground opens on the
  // newest release.
  assert.equal(message, '0/3 nodes are available: 3 Insufficient nvidia.com/gpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.');
  const reasons = await page.locator('#node-reasons tbody tr').allTextContents();
  assert.equal(reasons.length, 3);
  assert.ok(reasons.every((r) => r.includes('Insufficient nvidia.com/gpu')), reasons.join('|'));
  await page.locator('[data-node="gpu-a"] .node-name').click();
  assert.match(await page.textContent('#node-detail'), /NodeResourcesFit/);
  // Upstream's default filter order; runFilterPlugins stops at the first failure.
  assert.match(await page.textContent('#filter-steps [data-plugin="NodePorts"]'), /passed/);
  assert.match(await page.textContent('#filter-steps [data-plugin="NodeResourcesFit"]'), /failed — .*Insufficient nvidia.com\/gpu/);
  assert.match(await page.textContent('#filter-steps [data-plugin="PodTopologySpread"]'), /not run/);
  await shot(page, 'pending-explained');
  // Clicking a node while What-if is open shows it in Explain.
  await page.click('#tab-whatif');
  await page.locator('[data-node="gpu-b"] .node-name').click();
  assert.equal(await page.getAttribute('#tab-explain', 'aria-selected'), 'true');
  assert.match(await page.textContent('#node-detail'), /gpu-b for this pod/);
  assert.deepEqual(page.errors, []);
});

test('a replica whose disk is pinned to a full zone: the message and where the volume lives', async () => {
  const page = await open();
  await loadExample(page, 'statefulset-zonal-volumes');
  // tests/scenarios/statefulset-zonal-volumes/expected-1.37.jsonl (the real kube-scheduler of
  // the newest release, the playground's default).
  assert.equal(await page.locator('#pending .chip').count(), 1);
  await page.locator('#pending .chip').click();
  assert.equal(await page.textContent('#pod-message-text'), "0/6 nodes are available: 2 Insufficient cpu, 4 node(s) didn't match PersistentVolume's node affinity. preemption: 0/6 nodes are available: 2 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.");
  const volumes = await page.textContent('#pod-volumes');
  assert.match(volumes, /data-web-0/);
  assert.match(volumes, /pv-data-web-0: only on nodes with topology\.kubernetes\.io\/zone In \[zone-a\]/);
  await shot(page, 'volume-pinned');
  assert.deepEqual(page.errors, []);
});

test('lowering minDomains in the controls schedules the Pending replica', async () => {
  const page = await open();
  await loadExample(page, 'min-domains-match-label-keys');
  assert.equal(await page.locator('#pending .chip').count(), 1);
  await page.locator('#pending .chip').click();
  assert.match(await page.textContent('#pod-message-text'), /^0\/8 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector, 2 node\(s\) had untolerated taint\(s\), 4 node\(s\) didn't match pod topology spread constraints\./);
  // The hostname constraint (second) asks for 5 domains; only 4 hosts are eligible.
  await page.selectOption('#ctl-constraint', '1');
  assert.equal(await page.inputValue('#ctl-minDomains'), '5');
  await shot(page, 'spread-arithmetic');
  await page.fill('#ctl-minDomains', '1');
  await page.press('#ctl-minDomains', 'Enter');
  await settled(page);
  assert.match(await editorText(page), /minDomains: 1\n/);
  assert.equal(await page.locator('#pending .chip').count(), 0);
  assert.match(await page.textContent('#summary'), /5 pods placed · 0 Pending/);
  await shot(page, 'min-domains-lowered');
});

test('failing a zone shows where the replacements go', async () => {
  const page = await open();
  await loadExample(page, 'spread-three-zones');
  await page.click('#tab-whatif');
  await page.click('[data-fail-zone="zone-a"]');
  const report = await page.textContent('#failure-report');
  assert.match(report, /zone=zone-a \(removed\)/);
  assert.match(report, /1 lost/);
  assert.ok(await page.locator('.zone.failed[data-zone="zone-a"]').count() === 1);
  await page.selectOption('#fail-mode', 'unreachable');
  assert.match(await page.textContent('#failure-report'), /zone=zone-a \(unreachable\)/);
  await shot(page, 'what-if-zone-failed');
  // The same from the cluster view: the zone's own fail toggle.
  await page.click('#tab-explain');
  await page.click('[data-zone="zone-b"] h3 .fail-toggle');
  assert.match(await page.textContent('#failure-report'), /zone=zone-b \(unreachable\)/);
  await loadExample(page, 'rollout-gpu-busy');
  await page.click('#wi-rollout');
  assert.match(await page.textContent('#rollout-outcome'), /Stalls/);
  await shot(page, 'what-if-rollout');
  await page.click('#wi-capacity');
  assert.match(await page.textContent('#capacity'), /more replica\(s\) fit/);
  await shot(page, 'what-if-capacity');
  await page.click('#wi-lint');
  assert.equal(await page.locator('#h-lint').count(), 1);
  await shot(page, 'what-if-lint');
});

test('a load error is listed with its line and the loader message', async () => {
  const page = await open();
  const before = await page.locator('#code-editor').boundingBox();
  await paste(page, 'apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels: [oops\n');
  await settled(page);
  const error = page.locator('#issues .error');
  assert.equal(await error.count(), 1);
  assert.match(await error.locator('.issue-line').textContent(), /^line \d+(:\d+)?$/);
  assert.match(await error.locator('.issue-message').textContent(), /scenario\.yaml/);
  assert.deepEqual(await page.locator('#code-editor').boundingBox(), before);
  await error.locator('.issue-line').click();
  assert.equal(await page.evaluate(() => document.activeElement.id), 'input');
  // A conversion error is underlined at its field (line 7, column 5: `cpu: lots`), the loader's
  // message on hover; the lint gutter marks the line; the button jumps to line:column.
  await paste(page, 'apiVersion: v1\nkind: Node\nmetadata:\n  name: a\nstatus:\n  allocatable:\n    cpu: lots\n');
  await settled(page);
  assert.match(await page.locator('#issues .error .issue-line').textContent(), /^line 7:5$/);
  const underline = page.locator('.cm-lintRange-error');
  await underline.waitFor();
  assert.equal(await underline.count(), 1);
  assert.equal(await underline.textContent(), 'cpu: lots');
  assert.equal(await page.locator('.cm-lint-marker-error').count(), 1);
  await underline.hover();
  assert.match(await page.locator('.cm-tooltip-lint').textContent(), /status\.allocatable\.cpu: quantities must match/);
  await shot(page, 'load-error-underline');
  await page.click('#tab-explain');
  await page.locator('#issues .error .issue-line').focus();
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'input');
  assert.deepEqual(await page.evaluate(() => window.spreadlabEditor.cursor()), { line: 7, column: 5 });
  await shot(page, 'load-error');
});

test('a shared link opens the same scenario in a fresh page', async () => {
  const page = await open();
  await loadExample(page, 'control-plane-only-zone');
  await page.selectOption('#ctl-nodeTaintsPolicy', 'Honor');
  await settled(page);
  const text = await editorText(page);
  assert.match(text, /nodeTaintsPolicy: Honor/);
  const summary = await page.textContent('#summary');
  await page.click('#share');
  const link = await page.inputValue('#share-url');
  assert.ok(link.includes('#s='), link);
  const fresh = await open(link.slice(link.indexOf('#')));
  assert.equal(await editorText(fresh), text);
  assert.equal(
    (await fresh.textContent('#summary')).replace(/ · simulated.*/, ''),
    summary.replace(/ · simulated.*/, ''));
  // The link is adopted: the hash leaves the address bar, and edits then survive a reload.
  assert.equal(await fresh.evaluate(() => location.hash), '');
  await fresh.focus('#input');
  await fresh.keyboard.press('Control+End');
  await fresh.keyboard.type('# my edit\n');
  await savedText(fresh, text + '# my edit\n');
  await fresh.reload();
  await fresh.waitForSelector('#summary[data-busy="false"]');
  assert.equal(await editorText(fresh), text + '# my edit\n');
  // The share box is dropped as soon as the text changes (its link would be stale).
  await page.focus('#input');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('#');
  assert.equal(await page.locator('#share-url').count(), 0);
  assert.deepEqual(fresh.errors, []);
});

test('the link format is plain raw deflate + base64url, and a hash change loads it', async () => {
  const page = await open();
  const text = 'apiVersion: v1\nkind: Node\nmetadata: {name: from-zlib, labels: {topology.kubernetes.io/zone: z9}}\nstatus: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}\n';
  const hash = '#s=' + deflateRawSync(Buffer.from(text)).toString('base64url');
  await page.evaluate((h) => { location.hash = h; }, hash);
  await page.waitForFunction(() => window.spreadlabEditor.text().includes('from-zlib'));
  await settled(page);
  assert.equal(await editorText(page), text);
  assert.equal(await page.locator('[data-zone="z9"] [data-node="from-zlib"]').count(), 1);
});

test('a big snapshot is read in slices with a progress bar, then gives the real scheduler\'s answer', async () => {
  // The 120-node scenario (a List of nodes and existing pods, and its workloads), each object
  // carrying a 24 KB last-applied-configuration annotation as kubectl dumps do (annotations
  // are never read by the scheduler): over 1 MiB, so the import parses it a slice at a time.
  const dir = new globalThis.URL('../scenarios/large-120-nodes-zone-spread/', import.meta.url);
  const padding = `'${JSON.stringify({ note: 'x'.repeat(24_000) })}'`;
  const cluster = readFileSync(new globalThis.URL('cluster.yaml', dir), 'utf8')
    .replaceAll('\n    metadata:\n', `\n    metadata:\n      annotations:\n        kubectl.kubernetes.io/last-applied-configuration: ${padding}\n`);
  const text = cluster + '---\n' + readFileSync(new globalThis.URL('workload.yaml', dir), 'utf8');
  assert.ok(text.length > 2 ** 21, `${text.length} bytes`);
  // What the real kube-scheduler 1.37 did with the same scenario.
  const expected = readFileSync(new globalThis.URL('expected-1.37.jsonl', dir), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const placed = expected.filter((e) => e.node).length;
  const pending = expected.length - placed;
  const page = await open();
  await page.evaluate(() => {
    window.importSeen = [];
    window.importFrames = 0;
    new MutationObserver(() => {
      const bar = document.querySelector('#import-progress');
      if (bar && window.importSeen.at(-1) !== bar.value) window.importSeen.push(bar.value);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
    window.longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longest = Math.max(window.longest, e.duration);
    }).observe({ type: 'longtask' });
    const frame = () => { if (!document.querySelector('#summary').textContent.startsWith('120 nodes')) { window.importFrames += 1; requestAnimationFrame(frame); } };
    requestAnimationFrame(frame);
  });
  const started = Date.now();
  await page.setInputFiles('#import', { name: 'big.yaml', mimeType: 'application/yaml', buffer: Buffer.from(text) });
  await page.waitForFunction(() => document.querySelector('#summary').textContent.startsWith('120 nodes'));
  await settled(page);
  const took = Date.now() - started;
  assert.match(await page.textContent('#summary'), new RegExp(`^120 nodes · ${placed} pods placed · ${pending} Pending`));
  assert.match(await page.textContent('#notice'), /Imported big\.yaml/);
  assert.equal(await editorText(page), text);
  // The bar moved (several values, ending at 100) and the page drew frames while it did.
  const seen = await page.evaluate(() => window.importSeen);
  assert.ok(seen.length >= 3 && seen.every((v, i) => i === 0 || v > seen[i - 1]), JSON.stringify(seen));
  assert.equal(await page.locator('#import-progress').count(), 0);
  const { frames, longest } = await page.evaluate(() => ({ frames: window.importFrames, longest: window.longest }));
  assert.ok(frames >= seen.length, `${frames} frames`);
  console.log(`# big import, ${(text.length / 1e6).toFixed(1)} MB: result after ${took} ms; progress values ${seen.length}; frames drawn ${frames}; longest task ${Math.round(longest)} ms`);
  assert.deepEqual(page.errors, []);
});

test('the kube-scheduler release selector changes the answer, and a share link carries it', async () => {
  // tests/scenarios/version-namespace-selector-notin: the real schedulers leave the replica
  // Pending up to 1.36 (expected.jsonl, expected-1.36.jsonl) and place it in 1.37
  // (expected-1.37.jsonl).
  const dir = new globalThis.URL('../scenarios/version-namespace-selector-notin/', import.meta.url).pathname;
  const text = readFileSync(dir + 'cluster.yaml', 'utf8') + '---\n' + readFileSync(dir + 'workload.yaml', 'utf8');
  const page = await open('#s=' + deflateRawSync(Buffer.from(text)).toString('base64url'));
  assert.equal(await page.inputValue('#kubernetes-version'), '1.35');
  assert.match(await page.textContent('#summary'), /0 pods placed · 1 Pending/);
  await page.selectOption('#kubernetes-version', '1.37');
  await page.waitForFunction(() => /1 pods placed · 0 Pending/.test(document.querySelector('#summary').textContent));
  await page.selectOption('#kubernetes-version', '1.36');
  await page.waitForFunction(() => /0 pods placed · 1 Pending/.test(document.querySelector('#summary').textContent));
  await page.selectOption('#kubernetes-version', '1.37');
  await page.waitForFunction(() => /1 pods placed · 0 Pending/.test(document.querySelector('#summary').textContent));
  await page.click('#share');
  const link = await page.inputValue('#share-url');
  assert.ok(link.endsWith('&v=1.37'), link);
  const fresh = await open(link.slice(link.indexOf('#')));
  assert.equal(await fresh.inputValue('#kubernetes-version'), '1.37');
  assert.match(await fresh.textContent('#summary'), /1 pods placed · 0 Pending/);
  await shot(fresh, 'kubernetes-version-1.37');
  assert.deepEqual([...page.errors, ...fresh.errors], []);
});

test('the text survives a reload', async () => {
  const page = await open();
  await loadExample(page, 'anti-affinity-too-few-nodes');
  const text = await editorText(page);
  // Wait for the save itself (it follows the debounced re-simulation), not a fixed time.
  await savedText(page, text);
  await page.reload();
  await page.waitForSelector('#summary[data-busy="false"]');
  assert.equal(await editorText(page), text);
});

test('export writes the text to a file; import reads one and resets the selection', async () => {
  const page = await open();
  await loadExample(page, 'spread-three-zones');
  const text = await editorText(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  assert.equal(download.suggestedFilename(), 'scenario.yaml');
  const { readFileSync } = await import('node:fs');
  assert.equal(readFileSync(await download.path(), 'utf8'), text);
  // Import a different scenario: the text is replaced, the failure target is dropped.
  await page.click('#tab-whatif');
  await page.click('[data-fail-zone="zone-a"]');
  const imported = readFileSync(new globalThis.URL('../scenarios/control-plane-only-zone/cluster.yaml', import.meta.url), 'utf8');
  await page.setInputFiles('#import', { name: 'cluster.yaml', mimeType: 'application/yaml', buffer: Buffer.from(imported) });
  await page.waitForFunction((t) => window.spreadlabEditor.text() === t, imported);
  await settled(page);
  assert.match(await page.textContent('#notice'), /Imported cluster\.yaml/);
  assert.equal(await page.locator('.zone.failed').count(), 0);
  assert.match(await page.textContent('#summary'), /^3 nodes/);
  assert.deepEqual(page.errors, []);
});

test('a lesson: predict, then read the engine answer', async () => {
  const page = await open();
  await page.click('#tab-lessons');
  // The editor still holds the first example: no prediction until the lesson's scenario is in.
  assert.match(await page.textContent('#lesson-status'), /another scenario/);
  assert.ok(await page.isDisabled('#choice-0'));
  await page.click('[data-lesson="1"]');
  await settled(page);
  assert.match(await editorText(page), /maxSkew 2 over zones/);
  assert.match(await page.textContent('#lesson-question'), /maxSkew is 2/);
  // The misconception: "maxSkew is the largest difference between any two zones".
  await page.check('#choice-0');
  const answer = await page.textContent('#lesson-answer');
  assert.match(answer, /The engine says: zone-b or zone-c/);
  assert.match(answer, /global minimum/);
  // The evidence comes from the simulation (hand-derived: count + 1 − min ≤ 2 for b and c),
  // and its arithmetic is drawn: counts a=3 b=1 c=0, global minimum 0, limit 0 + 2.
  assert.match(await page.textContent('#lesson-evidence'), /Placed: 1 of 1.*zone-b, zone-c/s);
  const chart = page.locator('#lesson-charts figure.spread');
  assert.equal(await chart.count(), 1);
  assert.equal(await chart.locator('.limit-label').getAttribute('data-limit'), '2');
  assert.deepEqual(await chart.locator('.domain .value').allTextContents(), ['3', '1', '0']);
  // Locked once revealed.
  assert.ok(await page.isDisabled('#choice-2'));
  await shot(page, 'lesson');
  // Next loads the next lesson's scenario; an edit is flagged and can be reset.
  await page.click('#lesson-next');
  await settled(page);
  assert.match(await page.textContent('#lesson-question'), /lost its zone label/);
  await page.focus('#input');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('# mine\n');
  await settled(page);
  await page.click('#tab-lessons');
  assert.match(await page.textContent('#lesson-status'), /edited/);
  await page.click('#lesson-open');
  await settled(page);
  assert.doesNotMatch(await editorText(page), /# mine/);
});

/** The learner's change for each lesson of the path, made in the controls or typed in the editor
 * (the same changes crates/playground/src/lessons/tests.rs checks natively). */
const CHANGES = [
  async (page) => { await page.fill('#ctl-replicas-0', '7'); await page.press('#ctl-replicas-0', 'Enter'); },
  async (page) => { await page.fill('#ctl-maxSkew', '1'); await page.press('#ctl-maxSkew', 'Enter'); },
  async (page) => paste(page, (await editorText(page)).replace('kubernetes.io/os: linux\n\n', 'kubernetes.io/os: linux\n        topology.kubernetes.io/zone: zone-x\n')),
  async (page) => { await page.fill('#ctl-minDomains', '2'); await page.press('#ctl-minDomains', 'Enter'); },
  async (page) => page.selectOption('#ctl-whenUnsatisfiable', 'DoNotSchedule'),
  async (page) => paste(page, (await editorText(page)).replace('      containers:\n', '      topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: api}}}]\n      containers:\n')),
  async (page) => page.selectOption('#ctl-nodeTaintsPolicy', 'Honor'),
  async (page) => page.selectOption('#ctl-nodeTaintsPolicy', 'Honor'),
  async (page) => page.uncheck('#ctl-matchLabelKeys'),
  async (page) => page.selectOption('#ctl-strategy-0', '{type: RollingUpdate, rollingUpdate: {maxSurge: 0, maxUnavailable: 1}}'),
  async (page) => { await page.fill('#ctl-replicas-0', '3'); await page.press('#ctl-replicas-0', 'Enter'); },
  async (page) => paste(page, (await editorText(page)).replace('minAvailable: 3', 'minAvailable: 2')),
  async (page) => paste(page, (await editorText(page)).replace('requests: {cpu: "4"}', 'requests: {cpu: "2"}')),
  async (page) => page.selectOption('#kubernetes-version', '1.36'),
];

test('the lesson path: every lesson predicted and changed, progress kept over a reload, then the quiz', async () => {
  let page = await open();
  await page.click('#tab-lessons');
  const lessons = await page.locator('[data-lesson]').count();
  assert.equal(lessons, CHANGES.length);
  const started = Date.now();
  for (let i = 0; i < lessons; i++) {
    await page.click(`[data-lesson="${i}"]`);
    await settled(page);
    assert.match(await page.textContent('#lesson-status'), /holds this lesson's scenario/);
    assert.equal(await page.locator('#lesson-try').count(), 0);
    await page.check('#choice-0');
    await page.waitForSelector('#lesson-answer p strong');
    assert.match(await page.textContent('#lesson-try-status'), /Waiting for your change/);
    await page.click('#tab-explain');
    await CHANGES[i](page);
    await settled(page);
    await page.click('#tab-lessons');
    await page.waitForSelector('#lesson-try.done');
    assert.match(await page.textContent('#lesson-try-status'), /^✓ Done\./, `lesson ${i + 1}`);
    await page.waitForFunction((n) => document.querySelector('.path-progress label').textContent.startsWith(`${n} of`), i + 1);
    if (i === 5) {
      // Progress survives a reload.
      await page.reload();
      await page.waitForSelector('#summary[data-busy="false"]');
      await page.click('#tab-lessons');
      assert.match(await page.textContent('.path-progress label'), new RegExp(`^6 of ${lessons} lessons done`));
      assert.equal(await page.locator('.lesson-list li.done').count(), 6);
      await shot(page, 'lesson-path-progress');
    }
  }
  console.log(`# lesson path: ${lessons} lessons walked (predict, change, check) in ${Date.now() - started} ms of test time`);
  await page.click('#lesson-next');
  assert.equal(await page.locator('#quiz').count(), 1);
  const questions = await page.locator('.quiz-question').count();
  for (let q = 0; q < questions; q++) {
    await page.check(`#quiz-${q}-0`);
    await page.waitForSelector(`#quiz-${q} .quiz-answer`);
  }
  assert.match(await page.textContent('#quiz-score'), new RegExp(`of ${questions} right`));
  assert.match(await page.textContent('#path-end'), new RegExp(`You finished the path: ${lessons} lessons and the quiz`));
  await shot(page, 'lesson-quiz');
  // The quiz and its answers survive a reload too; a new quiz has new, unanswered questions.
  const first = await page.textContent('#quiz-0 .question');
  await page.reload();
  await page.waitForSelector('#summary[data-busy="false"]');
  await page.click('#tab-lessons');
  assert.equal(await page.textContent('#quiz-0 .question'), first);
  assert.equal(await page.locator('.quiz-answer').count(), questions);
  await page.click('#new-quiz');
  assert.equal(await page.locator('.quiz-answer').count(), 0);
  // Opening a quiz scenario puts it in the editor, where the engine explains it.
  await page.check('#quiz-0-0');
  await page.click('#quiz-0 .quiz-answer button');
  await settled(page);
  assert.match(await editorText(page), /Generated by the playground's quiz/);
  assert.deepEqual(page.errors, []);
});

test('keyboard: tabs and pod chips are reachable and work with Enter', async () => {
  const page = await open();
  await loadExample(page, 'gpu-three-zones-one-full');
  await page.focus('#pending .chip');
  await page.keyboard.press('Enter');
  assert.match(await page.textContent('#pod-message-text'), /Insufficient nvidia.com\/gpu/);
  await page.focus('#tab-whatif');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('#h-fail').count(), 1);
  // Tabs pattern: arrow keys move the selection and focus, the panel is labelled by its tab.
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-lessons');
  assert.equal(await page.getAttribute('#panel', 'aria-labelledby'), 'tab-lessons');
  assert.equal(await page.getAttribute('#tab-lessons', 'aria-controls'), 'panel');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-compare');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.getAttribute('#tab-lessons', 'aria-selected'), 'true');
  // Zone headers are focusable.
  await page.focus('[data-zone] h3');
  assert.equal(await page.evaluate(() => document.activeElement.tagName), 'H3');
});

test('a 390 px wide phone: nothing overflows sideways', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await seenWelcome(context);
  const page = await context.newPage();
  page.setDefaultTimeout(90_000);
  await page.goto(URL);
  await page.waitForSelector('#summary[data-busy="false"]');
  await page.selectOption('#example', 'spread-three-zones');
  await page.waitForSelector('#summary[data-busy="false"]');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `page is ${width} px wide`);
  // The code editor fits the width (long lines wrap inside it).
  const area = await page.locator('#code-editor').boundingBox();
  assert.ok(area.x + area.width <= 390, JSON.stringify(area));
  const zones = await page.locator('.zones').boundingBox();
  assert.ok(zones.x + zones.width <= 390, JSON.stringify(zones));
  await page.screenshot({ path: `${ARTIFACTS}/narrow-390.png`, fullPage: true });
  await context.close();
});

test('typing does not move the layout; timing of a 100-node, 200-pod re-simulation', async () => {
  const page = await open();
  let text = '';
  for (let i = 0; i < 100; i++) {
    text += `---\napiVersion: v1\nkind: Node\nmetadata: {name: n${i}, labels: {kubernetes.io/hostname: n${i}, topology.kubernetes.io/zone: z${i % 4}}}\nstatus: {allocatable: {cpu: '16', memory: 64Gi, pods: '110'}}\n`;
  }
  // `replicas` last, with no newline: Ctrl+End puts the cursor after its digits.
  text += `---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: 'web:1', resources: {requests: {cpu: 500m, memory: 1Gi}}}]\n      topologySpreadConstraints:\n        - maxSkew: 1\n          topologyKey: topology.kubernetes.io/zone\n          whenUnsatisfiable: DoNotSchedule\n          labelSelector: {matchLabels: {app: web}}\n  replicas: 200`;
  await paste(page, text);
  await settled(page);
  assert.match(await page.textContent('#summary'), /100 nodes · 200 pods placed · 0 Pending/);
  // Keystroke to result on screen: each keystroke changes the scenario (200 -> 20 -> 200 replicas),
  // or only a comment (the placement is kept); medians of 6 each.
  await page.focus('#input');
  await page.keyboard.press('Control+End');
  const changing = [];
  for (let i = 0; i < 6; i++) changing.push(await keystrokeToResult(page, i % 2 ? '0' : 'Backspace'));
  assert.match(await page.textContent('#summary'), /100 nodes · 200 pods placed · 0 Pending/);
  await page.keyboard.press('Enter');
  await settled(page);
  const commenting = [];
  for (const key of ['#', ' ', 'a', 'b', 'c', 'd']) commenting.push(await keystrokeToResult(page, key));
  console.log(`# keystroke to result on screen, 100 nodes / 200 pods (median ms): changing replicas ${median(changing)} ` +
    `[${changing.map(Math.round).join(', ')}]; in a comment ${median(commenting)} [${commenting.map(Math.round).join(', ')}]`);
  const before = await page.locator('#code-editor').boundingBox();
  const summaryBefore = await page.locator('#summary').boundingBox();
  // Type 10 characters into a comment; record main-thread long tasks (> 50 ms) meanwhile.
  await page.evaluate(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((e) => e.duration)))
      .observe({ type: 'longtask' });
  });
  await page.focus('#input');
  await page.keyboard.press('Control+End');
  const started = Date.now();
  await page.keyboard.type('# typing!!', { delay: 30 });
  const typing = Date.now() - started;
  await settled(page);
  const after = await page.locator('#code-editor').boundingBox();
  assert.deepEqual(after, before);
  assert.equal((await page.locator('#summary').boundingBox()).height, summaryBefore.height);
  const ms = Number(await page.getAttribute('#summary', 'data-sim-ms'));
  const longTasks = await page.evaluate(() => window.longTasks);
  console.log(`# re-simulation of 100 nodes / 200 pods: ${ms} ms; 10 keystrokes (30 ms apart) took ${typing} ms; ` +
    `main-thread tasks over 50 ms meanwhile: [${longTasks.map(Math.round).join(', ')}]`);
  // 1,000 nodes / 2,000 pods: the re-simulation time, and main-thread tasks while typing.
  let big = '';
  for (let i = 0; i < 1000; i++) {
    big += `---\napiVersion: v1\nkind: Node\nmetadata: {name: n${i}, labels: {kubernetes.io/hostname: n${i}, topology.kubernetes.io/zone: z${i % 4}}}\nstatus: {allocatable: {cpu: '16', memory: 64Gi, pods: '110'}}\n`;
  }
  big += text.slice(text.indexOf('---\napiVersion: apps/v1')).replace('replicas: 200', 'replicas: 2000');
  big += '\n';
  // Set as a paste would (one input event); Playwright's fill inserts text far more slowly.
  const pasted = Date.now();
  await paste(page, big);
  await page.waitForFunction(() => /1000 nodes/.test(document.querySelector('#summary').textContent));
  await settled(page);
  const pasteToResult = Date.now() - pasted;
  assert.match(await page.textContent('#summary'), /1000 nodes · 2000 pods placed · 0 Pending/);
  await page.evaluate(() => { window.longTasks = []; });
  await page.focus('#input');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('# typing!!', { delay: 30 });
  const typingTasks = await page.evaluate(() => window.longTasks.slice());
  await settled(page);
  console.log(`# re-simulation of 1,000 nodes / 2,000 pods: ${await page.getAttribute('#summary', 'data-sim-ms')} ms ` +
    `(paste to result ${pasteToResult} ms); main-thread tasks over 50 ms while typing: [${typingTasks.map(Math.round).join(', ')}]`);
  // Keystroke to result on screen for the large cluster: a comment, then a changed replica count.
  const bigCommenting = [];
  for (const key of ['x', 'y', 'z']) bigCommenting.push(await keystrokeToResult(page, key));
  console.log(`# keystroke to result on screen, 1,000 nodes / 2,000 pods, in a comment (ms): [${bigCommenting.map(Math.round).join(', ')}]`);
  await loadExample(page, 'large-120-nodes-zone-spread');
  console.log(`# re-simulation of the 120-node example: ${await page.getAttribute('#summary', 'data-sim-ms')} ms`);
  await shot(page, 'large-cluster');
  // Each What-if analysis on the 120-node example, computed only when its view is open.
  await page.click('#tab-whatif');
  const zone = await page.getAttribute('[data-fail-zone]', 'data-fail-zone');
  await page.click(`[data-fail-zone="${zone}"]`);
  await page.waitForSelector('#failure-report');
  const times = { failure: await page.getAttribute('.whatif-body', 'data-ms') };
  for (const view of ['rollout', 'capacity', 'lint']) {
    await page.click(`#wi-${view}`);
    await page.waitForSelector(`#h-${view}`);
    times[view] = await page.getAttribute('.whatif-body', 'data-ms');
  }
  console.log(`# What-if on the 120-node example (ms): ${JSON.stringify(times)}`);
});

test('above 300 nodes, each zone shows groups of alike nodes', async () => {
  const page = await open();
  let text = '';
  for (let i = 0; i < 320; i++) {
    const gpu = i % 8 === 0 ? ", nvidia.com/gpu: '4'" : '';
    text += `---\napiVersion: v1\nkind: Node\nmetadata: {name: n${i}, labels: {kubernetes.io/hostname: n${i}, topology.kubernetes.io/zone: z${i % 3}}}\nstatus: {allocatable: {cpu: '32', memory: 128Gi, pods: '110'${gpu}}}\n`;
  }
  text += `---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api, namespace: default}\nspec:\n  replicas: 30\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec:\n      containers: [{name: api, image: 'api:1', resources: {requests: {cpu: '1', memory: 2Gi}}}]\n`;
  await paste(page, text);
  await settled(page);
  assert.match(await page.textContent('#summary'), /320 nodes · 30 pods placed · 0 Pending/);
  assert.equal(await page.locator('.node:not(.group)').count(), 0);
  // Per zone: the GPU nodes and the CPU-only nodes (shapes from the nodes' allocatable).
  assert.equal(await page.locator('.node.group').count(), 6);
  assert.match(await page.locator('[data-zone="z0"] .node.group').first().textContent(), /× 32 CPU · 128 GiB/);
  // The GPU group keeps its GPU usage; groups are focusable and expand to their nodes.
  assert.equal(await page.locator('[data-zone="z0"] .node.group .usage-label', { hasText: 'GPU' }).count(), 1);
  const group = page.locator('[data-zone="z0"] .node.group').first();
  await group.locator('summary').focus();
  await page.keyboard.press('Enter');
  assert.ok((await group.locator('.group-nodes li').count()) > 1);
  await shot(page, 'large-cluster-aggregated');
});

test('what-if pictures: a rollout timeline, capacity per zone, tie-break outcomes, a failure before and after', async () => {
  const page = await open();
  await loadExample(page, 'rollout-gpu-busy');
  const zones = await page.locator('.zone[data-zone]').count();
  await page.click('#tab-whatif');
  await page.click('#wi-rollout');
  // One column per step of the timeline, its numbers as a table row each.
  const columns = await page.locator('#rollout-picture .column').count();
  assert.equal(columns, Number(await page.getAttribute('#rollout-step', 'max')) + 1);
  assert.equal(await page.locator('#rollout-picture tbody tr').count(), columns);
  // Every GPU is busy: the stall is marked with the scheduler's own message, as the outcome says.
  const stall = await page.textContent('#rollout-picture .stall title');
  assert.match(stall, /^Stalls at step \d+: 0\/\d+ nodes are available/);
  assert.ok((await page.textContent('#rollout-outcome')).includes(stall.replace(/^Stalls at step \d+: /, '')));
  // The picture names itself to screen readers and takes the keyboard focus.
  const svg = page.locator('#rollout-picture svg');
  assert.equal(await svg.getAttribute('role'), 'img');
  assert.match(await page.textContent('#rollout-picture desc'), /stalls at step/);
  await svg.focus();
  assert.equal(await page.evaluate(() => document.activeElement.closest('figure')?.id), 'rollout-picture');
  // Clicking a column moves the timeline there.
  await page.locator('#rollout-picture .column[data-step="0"]').click();
  assert.equal(await page.inputValue('#rollout-step'), '0');
  assert.equal(await page.locator('#rollout-picture .column.current').getAttribute('data-step'), '0');
  // The alternatives the report tries each get a timeline; one that completes has no stall mark.
  const alternatives = await page.locator('.alternative').allTextContents();
  assert.ok(alternatives.length > 0);
  for (const [i, text] of alternatives.entries()) {
    const marks = await page.locator(`#rollout-alternative-${i} .stall`).count();
    assert.equal(marks, /: completes;/.test(text) ? 0 : 1, text);
  }
  await shot(page, 'picture-rollout');

  await page.click('#wi-capacity');
  // A bar per zone of the cluster, labelled "running + more".
  assert.equal(await page.locator('#capacity-picture-0 .zone-row').count(), zones);
  const sums = await page.locator('#capacity-picture-0 .zone-row .value').allTextContents();
  assert.ok(sums.every((s) => /^\d+ \+ \d+$/.test(s)), sums.join());
  await shot(page, 'picture-capacity');

  await page.click('#wi-risk');
  await page.click('#run-risk');
  await page.waitForSelector('#risk-picture-0');
  // Both histograms hold every run (50 seeded tie-breaks).
  const runs = (await page.locator('#risk-picture-0 tbody td').allTextContents()).map(Number);
  assert.equal(runs.reduce((a, b) => a + b, 0), 2 * 50);
  await shot(page, 'picture-risk');

  await loadExample(page, 'spread-three-zones');
  await page.click('#wi-failure');
  const zone = await page.getAttribute('[data-fail-zone]', 'data-fail-zone');
  await page.click(`[data-fail-zone="${zone}"]`);
  await page.waitForSelector('#failure-picture-0');
  const failed = page.locator('#failure-picture-0 .zone-row.failed');
  assert.equal(await failed.count(), 1);
  assert.equal(await failed.getAttribute('data-zone'), zone);
  // After the failure the failed zone holds nothing.
  assert.match(await failed.locator('.value').textContent(), /→ 0$/);
  await shot(page, 'picture-failure');
  assert.deepEqual(page.errors, []);
});

const AXE = new globalThis.URL('./node_modules/axe-core/axe.min.js', import.meta.url).pathname;

/** axe-core's serious and critical violations on the page as it is now. */
async function audit(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(' | ')}`);
}

for (const scheme of ['light', 'dark']) {
  test(`accessibility (${scheme}): no serious or critical axe-core violation on any panel`, async () => {
    const page = await open();
    await page.emulateMedia({ colorScheme: scheme });
    const found = {};
    const check = async (where) => {
      const violations = await audit(page);
      if (violations.length) found[where] = violations;
    };
    await check('start');
    await page.click('.pending-tray .chip');
    await check('explain, a Pending pod');
    await loadExample(page, 'rollout-gpu-busy');
    await page.click('#tab-whatif');
    for (const view of ['failure', 'rollout', 'capacity', 'risk', 'lint']) {
      await page.click(`#wi-${view}`);
      if (view === 'failure') await page.click('[data-fail-zone]');
      if (view === 'risk') await page.click('#run-risk');
      await check(`what-if ${view}`);
    }
    await page.click('#tab-lessons');
    await check('lessons');
    await page.click('#open-quiz');
    await page.check('#quiz-0-0');
    await check('final quiz');
    await page.click('#gallery-open');
    await check('gallery');
    await shot(page, `accessibility-${scheme}`);
    assert.deepEqual(found, {});
  });
}

test('the code editor: YAML highlighting, line numbers, folding, search, and the text stays the app\'s', async () => {
  const page = await open();
  await loadExample(page, 'spread-three-zones');
  assert.equal(await page.locator('#code-editor .cm-editor').count(), 1);
  // Keys and values are told apart (highlighting), and every line is numbered.
  const key = page.locator('.cm-line', { hasText: 'apiVersion: v1' }).first().locator('span').first();
  const keyColour = await key.evaluate((e) => getComputedStyle(e).color);
  const lineColour = await page.locator('.cm-line', { hasText: 'apiVersion: v1' }).first().evaluate((e) => getComputedStyle(e).color);
  assert.notEqual(keyColour, lineColour);
  const lines = (await editorText(page)).split('\n').length;
  assert.ok(await page.locator('.cm-lineNumbers .cm-gutterElement').count() > 10);
  // Folding a mapping hides its lines behind a placeholder; the text itself is unchanged.
  const text = await editorText(page);
  await page.locator('.cm-foldGutter .cm-gutterElement span[title="Fold line"]').first().click();
  assert.equal(await page.locator('.cm-foldPlaceholder').count(), 1);
  assert.equal(await editorText(page), text);
  // Search (Ctrl+F) opens the search panel and finds the text.
  await page.focus('#input');
  await page.keyboard.press('Control+f');
  await page.waitForSelector('.cm-search');
  await page.keyboard.type('maxSkew');
  await page.keyboard.press('Enter');
  assert.ok(await page.locator('.cm-searchMatch').count() >= 1);
  await shot(page, 'editor-search');
  await page.keyboard.press('Escape');
  // A control rewrites the text: the editor shows it (the app's text is the source of truth).
  await page.fill('#ctl-maxSkew', '2');
  await page.press('#ctl-maxSkew', 'Enter');
  await settled(page);
  assert.match(await editorText(page), /maxSkew: 2/);
  assert.equal((await editorText(page)).split('\n').length, lines);
  // Undo in the editor is an edit like any other: the app follows it.
  await page.focus('#input');
  await page.keyboard.press('Control+End');
  await page.keyboard.type('# x');
  await page.keyboard.press('Control+z');
  await settled(page);
  assert.doesNotMatch(await editorText(page), /# x/);
  assert.deepEqual(page.errors, []);
});

test('the gallery: search the examples and public scenarios, open one with its source', async () => {
  const page = await open();
  await page.click('#gallery-open');
  const all = Number((await page.textContent('#gallery-count')).split(' ')[0]);
  await page.fill('#gallery-search', 'docs conflicting');
  assert.match(await page.textContent('#gallery-count'), new RegExp(`^1 of ${all} scenarios`));
  await shot(page, 'gallery-search');
  await page.click('[data-entry="docs-conflicting-constraints"] .gallery-title');
  await settled(page);
  // The Kubernetes docs: "the Pod mypod stays in the Pending state".
  assert.match(await page.textContent('#notice'), /Source: kubernetes\/website .*two-constraints\.yaml/);
  assert.match(await editorText(page), /kind: "Pod"/);
  assert.equal(await page.locator('#pending .chip').count(), 1);
  assert.equal(await page.locator('#gallery').count(), 0);
  // An example opens as the example (its hint and menu entry).
  await page.click('#gallery-open');
  await page.fill('#gallery-search', 'every GPU busy');
  await page.click('[data-entry="rollout-gpu-busy"] .gallery-title');
  await settled(page);
  assert.equal(await page.inputValue('#example'), 'rollout-gpu-busy');
  assert.deepEqual(page.errors, []);
});

test('a first visit gets a one-screen welcome; a share link and later visits do not', async () => {
  for (const [width, height] of [[1400, 900], [390, 844], [2560, 1440]]) {
    const context = await browser.newContext({ viewport: { width, height } });
    const page = await context.newPage();
    page.setDefaultTimeout(90_000);
    await page.goto(URL);
    await page.waitForSelector('#welcome');
    // One screen: the whole dialog is visible without scrolling, and nothing overflows sideways.
    const box = await page.locator('#welcome').boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= height, `${width}: ${JSON.stringify(box)}`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= width);
    assert.equal(await page.evaluate(() => document.activeElement.id), 'welcome-lessons');
    await page.screenshot({ path: `${ARTIFACTS}/welcome-${width}.png` });
    if (width === 1400) {
      assert.deepEqual(await audit(page), []);
      await page.click('#welcome-lessons');
      await page.waitForSelector('#lesson-question');
      assert.match(await page.textContent('#lesson-question'), /6 replicas/);
      await page.reload();
      await page.waitForSelector('#summary[data-busy="false"]');
      assert.equal(await page.locator('#welcome').count(), 0);
      // The header's About shows it again, the page behind it inert; Escape closes it and the
      // focus returns to About.
      await page.click('#about');
      await page.waitForSelector('#welcome');
      assert.equal(await page.evaluate(() => document.querySelector('main.layout').inert), true);
      await page.keyboard.press('Escape');
      assert.equal(await page.locator('#welcome').count(), 0);
      assert.equal(await page.evaluate(() => document.activeElement.id), 'about');
      assert.equal(await page.evaluate(() => document.querySelector('main.layout').inert), false);
    } else {
      // The layout stays usable at this width: the three columns are there.
      await page.click('#welcome-close');
      await page.waitForSelector('#summary[data-busy="false"]');
      await page.screenshot({ path: `${ARTIFACTS}/layout-${width}.png`, fullPage: width < 1000 });
    }
    await context.close();
  }
  // A share link opens its scenario, not the welcome.
  const context = await browser.newContext();
  const page = await context.newPage();
  const text = 'apiVersion: v1\nkind: Node\nmetadata: {name: shared-node}\nstatus: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}\n';
  await page.goto(URL + '#s=' + deflateRawSync(Buffer.from(text)).toString('base64url') + '&v=1.37');
  await page.waitForSelector('#summary[data-busy="false"]');
  assert.equal(await page.locator('#welcome').count(), 0);
  await context.close();
});

test('compare mode: pin a baseline, change the release and a control, see what moved and why', async () => {
  const page = await open();
  await loadExample(page, 'version-namespace-selector-notin');
  await page.click('#tab-compare');
  await page.click('#compare-pin');
  assert.match(await page.textContent('#compare-summary'), /^Nothing changed/);
  // 1.36 counts the team-a pod (tests/scenarios/version-namespace-selector-notin/expected-1.36.jsonl).
  await page.selectOption('#kubernetes-version', '1.36');
  await settled(page);
  assert.match(await page.textContent('#compare-summary'), /^1 pod\(s\) changed, 0 unchanged/);
  const change = page.locator('#compare-changes li[data-kind="now Pending"]');
  assert.equal(await change.count(), 1);
  assert.match(await change.textContent(), /node-1 \(zone-a\) → Pending/);
  assert.match(await change.locator('.reason').textContent(), /^0\/1 nodes are available: 1 node\(s\) didn't match pod anti-affinity rules\./);
  assert.match(await page.textContent('#compare-zones [data-zone="zone-a"]'), /zone-a\s*1\s*0\s*-1/);
  await shot(page, 'compare-release');
  // Back to the baseline: text and release restored, nothing changed.
  await page.click('#compare-restore');
  await settled(page);
  assert.equal(await page.inputValue('#kubernetes-version'), '1.37');
  assert.match(await page.textContent('#compare-summary'), /^Nothing changed/);
  // A control change: one more replica is new.
  await loadExample(page, 'spread-three-zones');
  await page.click('#tab-compare');
  await page.click('#compare-repin');
  await page.click('#tab-explain');
  await page.fill('#ctl-replicas-0', '4');
  await page.press('#ctl-replicas-0', 'Enter');
  await settled(page);
  await page.click('#tab-compare');
  assert.match(await page.textContent('#compare-summary'), /^1 pod\(s\) changed, 3 unchanged/);
  assert.equal(await page.locator('#compare-changes li[data-kind="new"]').count(), 1);
  assert.deepEqual(await audit(page), []);
  assert.deepEqual(page.errors, []);
});
