module.exports = {
  displayName: 'database',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/database',
};
