/** `npm run bench`. */
export async function bench(): Promise<number> {
  console.log('bench');
  return 0;
}
