module.exports = {
  displayName: 'orders',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/apps/orders',
};
