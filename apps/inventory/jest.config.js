module.exports = {
  displayName: 'inventory',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/apps/inventory',
};
