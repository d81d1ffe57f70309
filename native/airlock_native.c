/*
 * The two things the daemon needs that Node has no API for:
 *   peerCredentials(fd)  SO_PEERCRED, SO_PEERGROUPS and SO_PEERPIDFD of a connected
 *                        Unix socket: who the kernel says is on the other end.
 *   peerProcess(pidfd)   who stands behind a root peer: its audit login uid and the
 *                        SUDO_UID/SUDO_USER sudo put in its environment, read from
 *                        the /proc entry of the process the pidfd pins (never a
 *                        recycled pid: the entry is opened first, then the pidfd
 *                        must still name a live process).
 *   lockHolder(path)     whether a POSIX/OFD record lock is held on a file (the dpkg
 *                        lock), without taking it: F_OFD_GETLK.
 *   readNoFollow(path, limit)  a promise of a small file's bytes, opened with openat2 and
 *                        RESOLVE_NO_SYMLINKS (a link at any component refuses), then fstat and
 *                        read, in one job on libuv's thread pool: what safe-fs.ts does with a
 *                        descriptor per component and seven round trips, in one. It decides
 *                        nothing: anything but "read it" or "absent" is left to safe-fs.ts,
 *                        which opens the path its own way and says why it refuses.
 * Kept deliberately tiny: this file runs inside the root daemon.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/openat2.h>

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

/* Reads at most cap-1 bytes of the file `name` in the directory dirfd; returns the length or -1. */
static ssize_t read_at(int dirfd, const char *name, char *buf, size_t cap) {
  int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  size_t n = 0;
  while (n < cap - 1) {
    ssize_t r = read(fd, buf + n, cap - 1 - n);
    if (r < 0) { if (errno == EINTR) continue; close(fd); return -1; }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = 0;
  return (ssize_t)n;
}

/* The value of KEY= in a NUL-separated environment block, copied into out (empty when absent). */
static void env_value(const char *env, size_t len, const char *key, char *out, size_t cap) {
  size_t klen = strlen(key);
  out[0] = 0;
  for (size_t i = 0; i < len;) {
    const char *entry = env + i;
    size_t elen = strnlen(entry, len - i);
    if (elen > klen && strncmp(entry, key, klen) == 0 && entry[klen] == '=') {
      size_t vlen = elen - klen - 1;
      if (vlen >= cap) vlen = cap - 1;
      memcpy(out, entry + klen + 1, vlen);
      out[vlen] = 0;
    }
    i += elen + 1;
  }
}

#define ENV_CAP (256 * 1024)

static napi_value peer_process(napi_env env, napi_callback_info info) {
  int32_t pidfd;
  if (get_int_arg(env, info, &pidfd) != 0 || pidfd < 0) {
    napi_throw_type_error(env, NULL, "peerProcess(pidfd): pidfd must be a non-negative integer");
    return NULL;
  }
  /* The pid the pidfd names, from its fdinfo (Linux 5.10+; -1 once it has exited). */
  char path[64], info_text[1024];
  snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
  int self = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (self < 0) return throw_errno(env, "open /proc/self", errno);
  char rel[48];
  snprintf(rel, sizeof rel, "fdinfo/%d", pidfd);
  ssize_t n = read_at(self, rel, info_text, sizeof info_text);
  close(self);
  if (n < 0) return throw_errno(env, path, errno);
  const char *p = strstr(info_text, "\nPid:");
  if (!p) { napi_throw_error(env, "ERR_AIRLOCK_NATIVE", "not a pidfd"); return NULL; }
  long pid = strtol(p + 5, NULL, 10);
  if (pid <= 0) { napi_throw_error(env, "ERR_AIRLOCK_NATIVE", "the peer process has exited"); return NULL; }
  snprintf(path, sizeof path, "/proc/%ld", pid);
  int dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return throw_errno(env, path, errno);
  /* Opened first, checked second: while the pidfd's process lives, its pid is not reused,
     so the directory just opened is that process's. */
  if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) != 0) {
    int err = errno;
    close(dir);
    return throw_errno(env, "the peer process has exited", err);
  }
  /* The real and saved uids: SO_PEERCRED gives the effective one, which a setuid-root program
     also has while its environment is still the invoking user's. */
  char status[8192];
  long real_uid = -1, saved_uid = -1;
  if (read_at(dir, "status", status, sizeof status) > 0) {
    const char *u = strstr(status, "\nUid:");
    if (u) {
      long ids[4] = {-1, -1, -1, -1};
      char *q = (char *)u + 5;
      for (int i = 0; i < 4; i++) ids[i] = strtol(q, &q, 10);
      real_uid = ids[0];
      saved_uid = ids[2];
    }
  }
  char loginuid[32];
  long login = -1;
  if (read_at(dir, "loginuid", loginuid, sizeof loginuid) > 0) {
    unsigned long v = strtoul(loginuid, NULL, 10);
    login = v == 4294967295UL ? -1 : (long)v;
  }
  char *envbuf = malloc(ENV_CAP);
  if (!envbuf) { close(dir); return throw_errno(env, "malloc", ENOMEM); }
  ssize_t elen = read_at(dir, "environ", envbuf, ENV_CAP);
  close(dir);
  char sudo_uid[16] = "", sudo_user[64] = "";
  if (elen > 0) {
    env_value(envbuf, (size_t)elen, "SUDO_UID", sudo_uid, sizeof sudo_uid);
    env_value(envbuf, (size_t)elen, "SUDO_USER", sudo_user, sizeof sudo_user);
  }
  free(envbuf);

  napi_value result, s;
  napi_create_object(env, &result);
  set_num(env, result, "pid", (double)pid);
  set_num(env, result, "loginUid", (double)login);
  set_num(env, result, "realUid", (double)real_uid);
  set_num(env, result, "savedUid", (double)saved_uid);
  napi_create_string_utf8(env, sudo_uid, NAPI_AUTO_LENGTH, &s);
  napi_set_named_property(env, result, "sudoUid", s);
  napi_create_string_utf8(env, sudo_user, NAPI_AUTO_LENGTH, &s);
  napi_set_named_property(env, result, "sudoUser", s);
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

/* One read: its input (path, limit) and what the thread pool found. */
typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  char path[4096];
  size_t limit;
  int err;          /* errno of openat2 or fstat; 0 when they succeeded */
  int regular;
  double nlink;
  char *data;       /* the bytes read, when regular, one link and at most limit bytes */
  size_t len;
  int complete;     /* data holds the whole file */
} read_job;

static void read_execute(napi_env env, void *arg) {
  (void)env;
  read_job *j = arg;
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  int fd = (int)syscall(SYS_openat2, AT_FDCWD, j->path, &how, sizeof how);
  if (fd < 0) { j->err = errno; return; }
  struct stat st;
  if (fstat(fd, &st) != 0) { j->err = errno; close(fd); return; }
  j->regular = S_ISREG(st.st_mode);
  j->nlink = (double)st.st_nlink;
  if (!j->regular || st.st_nlink > 1 || (size_t)st.st_size > j->limit) { close(fd); return; }
  /* A /proc file says size 0: read to the end, never past limit + 1 bytes. */
  size_t cap = (size_t)st.st_size + 1 > 4096 ? (size_t)st.st_size + 1 : 4096;
  if (cap > j->limit + 1) cap = j->limit + 1;
  char *buf = malloc(cap);
  size_t len = 0;
  while (buf) {
    if (len == cap) {
      if (cap >= j->limit + 1) break;
      size_t next = cap * 2 > j->limit + 1 ? j->limit + 1 : cap * 2;
      char *grown = realloc(buf, next);
      if (!grown) { free(buf); buf = NULL; break; }
      buf = grown;
      cap = next;
    }
    ssize_t n = read(fd, buf + len, cap - len);
    if (n < 0) { if (errno == EINTR) continue; free(buf); buf = NULL; break; }
    if (n == 0) { j->complete = len <= j->limit; break; }
    len += (size_t)n;
  }
  close(fd);
  j->data = buf;
  j->len = len;
}

static void read_complete(napi_env env, napi_status status, void *arg) {
  read_job *j = arg;
  napi_value result;
  napi_create_object(env, &result);
  set_num(env, result, "errno", (double)j->err);
  set_num(env, result, "nlink", j->nlink);
  napi_value flag;
  napi_get_boolean(env, j->regular != 0, &flag);
  napi_set_named_property(env, result, "regular", flag);
  if (status == napi_ok && j->data && j->complete) {
    napi_value content;
    void *copy;
    if (napi_create_buffer_copy(env, j->len, j->data, &copy, &content) == napi_ok) napi_set_named_property(env, result, "content", content);
  }
  free(j->data);
  napi_resolve_deferred(env, j->deferred, result);
  napi_delete_async_work(env, j->work);
  free(j);
}

static napi_value read_no_follow(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  double limit = 0;
  read_job *j = calloc(1, sizeof *j);
  size_t plen = 0;
  if (!j) return throw_errno(env, "calloc", ENOMEM);
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2 ||
      napi_get_value_string_utf8(env, argv[0], j->path, sizeof j->path, &plen) != napi_ok || plen == 0 ||
      plen >= sizeof j->path - 1 || j->path[0] != '/' || strlen(j->path) != plen ||
      napi_get_value_double(env, argv[1], &limit) != napi_ok || !(limit >= 0 && limit <= 1 << 30)) {
    free(j);
    napi_throw_type_error(env, NULL, "readNoFollow(path, limit): an absolute path and a limit of at most 1 GiB");
    return NULL;
  }
  j->limit = (size_t)limit;
  napi_value promise, name;
  napi_create_promise(env, &j->deferred, &promise);
  napi_create_string_utf8(env, "airlock.readNoFollow", NAPI_AUTO_LENGTH, &name);
  napi_create_async_work(env, NULL, name, read_execute, read_complete, j, &j->work);
  napi_queue_async_work(env, j->work);
  return promise;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    {"peerCredentials", NULL, peer_credentials, NULL, NULL, NULL, napi_default, NULL},
    {"peerProcess", NULL, peer_process, NULL, NULL, NULL, napi_default, NULL},
    {"closeFd", NULL, close_fd, NULL, NULL, NULL, napi_default, NULL},
    {"lockHolder", NULL, lock_holder, NULL, NULL, NULL, napi_default, NULL},
    {"readNoFollow", NULL, read_no_follow, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
