module.exports = {
  displayName: 'catalog-client',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/catalog-client',
};
