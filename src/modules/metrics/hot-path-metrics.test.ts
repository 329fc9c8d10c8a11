import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { fastCounter, fastCounterBy, fastHistogram } from './hot-path-metrics.js';

describe('hot-path metrics render as prom-client metrics would', () => {
  it('a histogram: cumulative buckets, +Inf, sum and count per series; equal labels share one series', async () => {
    const registry = new Registry();
    const histogram = fastHistogram<object>(registry, {
      name: 'h_seconds',
      help: 'help text',
      buckets: [0.1, 1],
    });
    const routeA = {};
    const routeB = {};
    const labels = (route: string) => (status: string) => ({ route, status });
    histogram.observe(routeA, 'GET', 200, 0.05, labels('/a'));
    histogram.observe(routeA, 'GET', 204, 0.5, labels('/a'));
    histogram.observe(routeA, 'GET', 200, 5, labels('/a'));
    histogram.observe(routeA, 'GET', 404, 0.01, labels('/a'));
    // Another owner with the same labels (a second config object of one route) adds to the same series.
    histogram.observe(routeB, 'GET', 201, 0.2, labels('/a'));
    const text = await registry.metrics();
    expect(text).toBe(
      [
        '# HELP h_seconds help text',
        '# TYPE h_seconds histogram',
        'h_seconds_bucket{route="/a",status="2xx",le="0.1"} 1',
        'h_seconds_bucket{route="/a",status="2xx",le="1"} 3',
        'h_seconds_bucket{route="/a",status="2xx",le="+Inf"} 4',
        'h_seconds_sum{route="/a",status="2xx"} 5.75',
        'h_seconds_count{route="/a",status="2xx"} 4',
        'h_seconds_bucket{route="/a",status="4xx",le="0.1"} 1',
        'h_seconds_bucket{route="/a",status="4xx",le="1"} 1',
        'h_seconds_bucket{route="/a",status="4xx",le="+Inf"} 1',
        'h_seconds_sum{route="/a",status="4xx"} 0.01',
        'h_seconds_count{route="/a",status="4xx"} 1',
        '',
      ].join('\n'),
    );
  });

  it('a counter over known label values', async () => {
    const registry = new Registry();
    const counter = fastCounter(registry, {
      name: 'c_total',
      help: 'events',
      label: 'event',
      values: ['hit', 'miss'],
    });
    counter.hit();
    counter.hit();
    counter.miss(3);
    expect(await registry.metrics()).toBe(
      [
        '# HELP c_total events',
        '# TYPE c_total counter',
        'c_total{event="hit"} 2',
        'c_total{event="miss"} 3',
        '',
      ].join('\n'),
    );
  });

  it('a counter by a label read per call and a label of known values', async () => {
    const registry = new Registry();
    const read = fastCounterBy(registry, {
      name: 'r_total',
      help: 'reads',
      labels: ['route', 'answer'],
      values: ['cache', 'database'],
    });
    expect(await registry.metrics()).toBe('# HELP r_total reads\n# TYPE r_total counter\n');
    read('/a', 'database');
    read('/a', 'cache');
    read('/a', 'cache');
    read('/b/:id', 'cache');
    expect(await registry.metrics()).toBe(
      [
        '# HELP r_total reads',
        '# TYPE r_total counter',
        'r_total{route="/a",answer="cache"} 2',
        'r_total{route="/a",answer="database"} 1',
        'r_total{route="/b/:id",answer="cache"} 1',
        'r_total{route="/b/:id",answer="database"} 0',
        '',
      ].join('\n'),
    );
  });
});
