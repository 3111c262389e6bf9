module.exports = {
  displayName: 'chart-check',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/tools/chart-check',
};
