import { type FormEvent } from 'react';
import { RolloutListTable } from '@review-views/rollout-list-table';

import type { RolloutListView } from '@libs/review-models';

import { links } from './hash-route';
import { useResource } from './use-resource';

const filterNames = ['scenario', 'agent', 'from', 'to', 'outcome', 'rule', 'severity'] as const;

const Choice = ({
  name,
  label,
  values,
  current,
}: {
  name: string;
  label: string;
  values: readonly string[];
  current?: string;
}) => (
  <label>
    {label}
    <select name={name} defaultValue={current ?? ''}>
      <option value="">any</option>
      {values.map((v) => (
        <option key={v} value={v}>
          {v}
        </option>
      ))}
    </select>
  </label>
);

/** Rollouts, newest first, filtered by what the query in the fragment says; a bad filter is the api's message. */
export const RolloutListScreen = ({ query }: { query: URLSearchParams }) => {
  const search = new URLSearchParams([...query.entries()].filter(([, v]) => v !== '')).toString();
  const list = useResource<RolloutListView>(`/v1/review/rollouts${search ? `?${search}` : ''}`);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const chosen = new URLSearchParams();
    for (const name of filterNames) {
      const value = form.get(name);
      if (typeof value === 'string' && value !== '') {
        chosen.set(name, value);
      }
    }
    window.location.hash = `#/rollouts?${chosen.toString()}`;
  };
  const choices = list.state === 'loaded' ? list.value.choices : { scenarios: [], agents: [], rules: [] };
  const current = Object.fromEntries(query.entries());
  return (
    <>
      <h1>Rollouts</h1>
      <form className="filters" onSubmit={submit} key={search}>
        <Choice name="scenario" label="scenario" values={choices.scenarios} current={current.scenario} />
        <Choice name="agent" label="agent" values={choices.agents} current={current.agent} />
        <label>
          from
          <input type="date" name="from" defaultValue={current.from} />
        </label>
        <label>
          to
          <input type="date" name="to" defaultValue={current.to} />
        </label>
        <Choice name="outcome" label="pass/fail" values={['passed', 'failed']} current={current.outcome} />
        <Choice name="rule" label="violated rule" values={choices.rules} current={current.rule} />
        <Choice name="severity" label="severity" values={['critical', 'major', 'minor']} current={current.severity} />
        <button type="submit">Filter</button>
        <a href="#/rollouts">clear</a>
      </form>
      {list.state === 'loading' && <p>Loading…</p>}
      {list.state === 'failed' && <p className="page-error">{list.message}</p>}
      {list.state === 'loaded' && (
        <div className="rollout-results" data-query={search}>
          <p className="meta">
            {list.value.matched} of the {list.value.scanned} newest rollouts
          </p>
          <RolloutListTable view={list.value} links={links} />
        </div>
      )}
    </>
  );
};
