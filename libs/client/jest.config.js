module.exports = {
  displayName: 'client',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/client',
  // The sources import each other as `./x.js`, as Node's ESM loader needs in the built package.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
