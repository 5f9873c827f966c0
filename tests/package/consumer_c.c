/* The C header from the installed package, as C99: create a handle, say how it went, release it. */
#include <gemmtune/gemmtune.h>
#include <stdio.h>

int main(void) {
  gemmtune_handle_t handle = NULL;
  const gemmtune_status_t status = gemmtune_create(&handle, NULL);
  printf("handle: %s %s\n", gemmtune_status_name(status), gemmtune_handle_message(handle));
  gemmtune_destroy(handle);
  return handle != NULL ? 0 : 1;
}
