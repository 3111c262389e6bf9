/** `npm run chaos`. */
export async function chaos(): Promise<number> {
  console.log('chaos');
  return 0;
}
