import { socketDirFor } from './cluster';

describe('socketDirFor (where the embedded server puts its Unix socket)', () => {
  // `<folder>/.s.PGSQL.54321` is the folder's length plus 15 bytes.
  const folderOf = (length: number) => `/${'d'.repeat(length - 1)}`;

  it('is the cluster folder when the socket path fits in 103 bytes (macOS takes 104 with the NUL)', () => {
    expect(socketDirFor('/srv/data/pg', 54321)).toBe('/srv/data/pg');
    expect(socketDirFor(folderOf(88), 54321)).toBe(folderOf(88));
  });

  it('is none (TCP on 127.0.0.1 only) when the path would be longer', () => {
    expect(socketDirFor(folderOf(89), 54321)).toBeUndefined();
    expect(socketDirFor(folderOf(300), 5432)).toBeUndefined();
  });

  it("is none for a folder PostgreSQL's list of socket folders would split or trim", () => {
    for (const folder of ['/srv/a,b/pg', '/srv/"a"/pg', '/srv/data/pg ', ' /srv/data/pg'])
      expect(socketDirFor(folder, 5432)).toBeUndefined();
    expect(socketDirFor('/srv/my data/pg', 5432)).toBe('/srv/my data/pg');
  });

  it('counts bytes, not characters', () => {
    const wide = `/d${'é'.repeat(43)}`; // 88 bytes, 45 characters
    expect(socketDirFor(wide, 54321)).toBe(wide);
    expect(socketDirFor(`${wide}é`, 54321)).toBeUndefined();
  });
});
