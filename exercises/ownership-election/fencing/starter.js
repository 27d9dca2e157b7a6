// A trusting worker: it runs, but it applies every request it receives.
export async function handleRequest(ctx, lockKey, request) {
  console.log(`applying ${request.id} from ${request.owner}`);
  return true;
}
