/*
 * The two things the daemon needs that Node has no API for:
 *   peerCredentials(fd)  SO_PEERCRED, SO_PEERGROUPS and SO_PEERPIDFD of a connected
 *                        Unix socket: who the kernel says is on the other end.
 *   lockHolder(path)     whether a POSIX/OFD record lock is held on a file (the dpkg
 *                        lock), without taking it: F_OFD_GETLK.
 * Kept deliberately tiny: this file runs inside the root daemon.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#define MAX_GROUPS 1024

static napi_value throw_errno(napi_env env, const char *what, int err) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  napi_throw_error(env, "ERR_AIRLOCK_NATIVE", msg);
  return NULL;
}

static int get_int_arg(napi_env env, napi_callback_info info, int32_t *out) {
  size_t argc = 1;
  napi_value argv[1];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return -1;
  if (napi_get_value_int32(env, argv[0], out) != napi_ok) return -1;
  return 0;
}

static void set_num(napi_env env, napi_value obj, const char *key, double v) {
  napi_value n;
  napi_create_double(env, v, &n);
  napi_set_named_property(env, obj, key, n);
}

static napi_value peer_credentials(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (get_int_arg(env, info, &fd) != 0 || fd < 0) {
    napi_throw_type_error(env, NULL, "peerCredentials(fd): fd must be a non-negative integer");
    return NULL;
  }
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return throw_errno(env, "SO_PEERCRED", errno);

  gid_t groups[MAX_GROUPS];
  socklen_t glen = sizeof groups;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &glen) != 0) return throw_errno(env, "SO_PEERGROUPS", errno);

  napi_value result, arr;
  napi_create_object(env, &result);
  set_num(env, result, "pid", cred.pid);
  set_num(env, result, "uid", cred.uid);
  set_num(env, result, "gid", cred.gid);
  size_t n = glen / sizeof(gid_t);
  napi_create_array_with_length(env, n, &arr);
  for (size_t i = 0; i < n; i++) {
    napi_value g;
    napi_create_double(env, groups[i], &g);
    napi_set_element(env, arr, (uint32_t)i, g);
  }
  napi_set_named_property(env, result, "groups", arr);

  /* A pidfd pins the peer process: its /proc entry cannot be recycled under us. */
  int pidfd = -1;
  socklen_t plen = sizeof pidfd;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &plen) != 0) pidfd = -1;
  set_num(env, result, "pidfd", pidfd);
  return result;
}

static napi_value close_fd(napi_env env, napi_callback_info info) {
  int32_t fd;
  if (get_int_arg(env, info, &fd) == 0 && fd > 2) close(fd);
  return NULL;
}

static napi_value lock_holder(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  char path[4096];
  size_t plen = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_string_utf8(env, argv[0], path, sizeof path, &plen) != napi_ok || plen == 0 ||
      plen >= sizeof path - 1) {
    napi_throw_type_error(env, NULL, "lockHolder(path): path must be a non-empty string");
    return NULL;
  }
  napi_value result;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) { napi_create_int32(env, 0, &result); return result; }
    return throw_errno(env, "open", errno);
  }
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  int rc = fcntl(fd, F_OFD_GETLK, &fl);
  int err = errno;
  close(fd);
  if (rc != 0) return throw_errno(env, "F_OFD_GETLK", err);
  /* l_pid is -1 for an OFD lock (no single owner), the holder's pid for a POSIX lock. */
  napi_create_int32(env, fl.l_type == F_UNLCK ? 0 : (fl.l_pid > 0 ? fl.l_pid : -1), &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    {"peerCredentials", NULL, peer_credentials, NULL, NULL, NULL, napi_default, NULL},
    {"closeFd", NULL, close_fd, NULL, NULL, NULL, napi_default, NULL},
    {"lockHolder", NULL, lock_holder, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
