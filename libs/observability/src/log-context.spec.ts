import { currentLogContext, withLogContext } from './log-context';

describe('log context', () => {
  it('is empty outside any bound work', () => {
    expect(currentLogContext()).toBeUndefined();
  });

  it('follows awaited work and nests by adding fields', async () => {
    const seen = await withLogContext({ requestId: 'r-1' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return withLogContext({ eventId: 'e-1' }, async () => {
        await Promise.resolve();
        return currentLogContext();
      });
    });
    expect(seen).toEqual({ requestId: 'r-1', eventId: 'e-1' });
  });

  it('keeps concurrent work apart', async () => {
    const both = await Promise.all(
      ['a', 'b'].map((id) =>
        withLogContext({ requestId: id }, async () => {
          await new Promise((resolve) => setTimeout(resolve, id === 'a' ? 5 : 1));
          return currentLogContext()?.requestId;
        }),
      ),
    );
    expect(both).toEqual(['a', 'b']);
  });
});
