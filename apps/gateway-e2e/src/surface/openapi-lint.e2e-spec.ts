import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { npmTools } from '@petstore/stack';
import { stackState } from '../support/stack';

const RULESET = join(__dirname, '../../../../tools/openapi-checks/spectral.yaml');

// The document as clients get it, judged by two linters that know nothing of how it was made.
describe('the OpenAPI document at /openapi.json', () => {
  let file: string;

  beforeAll(async () => {
    const state = stackState();
    file = join(dirname(state.openApiFile), 'openapi-linted.json');
    writeFileSync(file, await (await fetch(`${state.gatewayUrl}/openapi.json`)).text());
  });

  it('passes Spectral spectral:oas without a problem of any severity', () => {
    const spectral = spawnSync(npmTools()('spectral'), ['lint', '-r', RULESET, '-f', 'json', '--fail-severity=hint', file], { encoding: 'utf8' });
    const problems = JSON.parse(spectral.stdout.slice(spectral.stdout.indexOf('['), spectral.stdout.lastIndexOf(']') + 1)) as Array<{ code: string; path: string[]; message: string }>;
    expect(problems.map(({ code, path, message }) => `${code} at ${path.join('.')}: ${message}`)).toEqual([]);
    expect(spectral.status).toBe(0);
  });

  it('passes Redocly recommended without an error or a warning', () => {
    const redocly = spawnSync(npmTools()('redocly'), ['lint', '--extends=recommended', '--format=json', file], { encoding: 'utf8' });
    const report = JSON.parse(redocly.stdout) as { totals: { errors: number; warnings: number }; problems: Array<{ ruleId: string; message: string }> };
    expect(report.problems.map(({ ruleId, message }) => `${ruleId}: ${message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
