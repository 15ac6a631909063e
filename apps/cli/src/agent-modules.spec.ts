import { writeBundle } from '@test/support/bundle-fixtures';
import type { AgentSession } from '@libs/reference-agents';

import { agentFromModule, isAgentFile, loadAgentModule, resolveAgents } from './agent-modules';
import { UsageError } from './cli-output';

const session = { identity: { name: 'Pat' } } as unknown as AgentSession;

describe('agents from a user’s module', () => {
  it('tells a path from a built-in agent’s name', () => {
    expect(['./a.js', 'agents/b.mjs', 'c.cjs', 'C:\\x\\d', '/abs/e'].every(isAgentFile)).toBe(true);
    expect(['diligent', 'idle', 'sloppy', 'all'].filter(isAgentFile)).toEqual([]);
  });

  it('takes every documented shape, named by itself or by its file', async () => {
    const ran: string[] = [];
    const object = {
      name: 'mine',
      run: (s: AgentSession) => Promise.resolve(void ran.push(`object ${s.identity.name}`)),
    };
    const shapes: [unknown, string][] = [
      [{ default: object }, 'mine'],
      [{ agent: object }, 'mine'],
      [{ default: { agent: object } }, 'mine'],
      [{ default: { default: object } }, 'mine'],
      [{ default: { run: object.run } }, 'my-agent'],
      [{ default: function polite() {} }, 'polite'],
      [{ default: () => void ran.push('arrow') }, 'my-agent'],
    ];
    for (const [exports, name] of shapes) {
      const agent = agentFromModule(exports, '/somewhere/my-agent.mjs');
      expect(agent?.name).toBe(name);
      await agent?.run(session);
    }
    expect(ran).toContain('object Pat');
    expect(ran).toContain('arrow');
    expect(agentFromModule({ default: { name: 'x' } }, 'x.js')).toBeUndefined();
    expect(agentFromModule({ run: 'no' }, 'x.js')).toBeUndefined();
    expect(agentFromModule(undefined, 'x.js')).toBeUndefined();
  });

  it('loads a CommonJS module, and refuses a missing, broken or agent-less one naming the file', async () => {
    const dir = writeBundle({
      'ok.cjs': 'module.exports = { name: "careful", async run(session) { await session.finish(); } };\n',
      'broken.js': 'module.exports = { run( };\n',
      'empty.js': 'module.exports = { hello: 1 };\n',
      'taken.js': 'module.exports = { name: "diligent", run() {} };\n',
      'throws.js': 'throw new Error("no config file");\n',
    });
    await expect(loadAgentModule(`${dir}/ok.cjs`)).resolves.toMatchObject({ name: 'careful' });
    const refusal = (file: string): Promise<Error> =>
      loadAgentModule(file).then(
        () => new Error('loaded'),
        (error: unknown) => error as Error,
      );
    const missing = await refusal(`${dir}/missing.mjs`);
    expect(missing).toBeInstanceOf(UsageError);
    expect(missing.message).toBe(`${dir}/missing.mjs: no such agent module`);
    expect((await refusal(dir)).message).toMatch(/no such agent module/);
    expect((await refusal(`${dir}/broken.js`)).message).toMatch(
      new RegExp(`^${dir}/broken.js: the agent module could not be loaded: .+`),
    );
    expect((await refusal(`${dir}/throws.js`)).message).toMatch(/could not be loaded: no config file/);
    expect((await refusal(`${dir}/empty.js`)).message).toMatch(/empty.js exports no agent: export default/);
    expect((await refusal(`${dir}/taken.js`)).message).toMatch(/a built-in agent's name/);
  });

  it('resolves built-in names, all, and paths together; an unknown name is refused', async () => {
    const dir = writeBundle({ 'mine.js': 'exports.agent = { name: "mine", run() {} };\n' });
    expect((await resolveAgents(`diligent, ${dir}/mine.js`)).map((a) => a.name)).toEqual(['diligent', 'mine']);
    expect((await resolveAgents('all')).map((a) => a.name)).toEqual(['diligent', 'sloppy', 'idle']);
    await expect(resolveAgents('clever')).rejects.toThrow(/no reference agent "clever"; .* or a path to your own/);
  });
});
