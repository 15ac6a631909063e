import { boundedLabel, metricsText, mirrorMetrics, statusClass } from './metrics';

describe('mirror metrics', () => {
  it('keeps at most 200 distinct values per label, then says other; values are cut to 64 characters', () => {
    const values = Array.from({ length: 250 }, (_, i) => boundedLabel('spec-label', `value-${i}`));
    expect(new Set(values).size).toBe(201);
    expect(values.slice(200).every((v) => v === 'other')).toBe(true);
    // A value seen before the cap stays itself.
    expect(boundedLabel('spec-label', 'value-7')).toBe('value-7');
    expect(boundedLabel('another-label', 'x'.repeat(100))).toBe('x'.repeat(64));
  });

  it('classes statuses', () => {
    expect([200, 201, 404, 503].map(statusClass)).toEqual(['2xx', '2xx', '4xx', '5xx']);
  });

  it('prints counters in Prometheus text with their labels', async () => {
    mirrorMetrics.toolCalls.inc({ tool: 'lookup', outcome: 'refused' });
    const { contentType, body } = await metricsText();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(body).toContain('# TYPE mirror_tool_calls_total counter');
    expect(body).toMatch(/^mirror_tool_calls_total\{tool="lookup",outcome="refused"\} 1$/m);
  });
});
