/* LD_PRELOAD shim for ThreadSanitizer (tests/tsan/run.sh).
 *
 * Copyright (C) 2026 The cudagaussblur authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * GLib 2.74 on Linux implements GMutex and GCond with futexes (no pthread
 * calls), so TSan sees none of their happens-before edges: every access
 * under GST_OBJECT_LOCK or the frames-in-flight queue's lock would be
 * reported. These wrappers forward to GLib and tell TSan about the mutex
 * operations (the same annotations its pthread interceptors use). Calls
 * made inside libglib itself (GAsyncQueue, GMainContext, ...) bypass the
 * PLT and stay invisible; GAsyncQueue's push/pop are annotated here too. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glib.h>

void __tsan_mutex_create (void *addr, unsigned flags);
void __tsan_mutex_destroy (void *addr, unsigned flags);
void __tsan_mutex_pre_lock (void *addr, unsigned flags);
void __tsan_mutex_post_lock (void *addr, unsigned flags, int recursion);
int __tsan_mutex_pre_unlock (void *addr, unsigned flags);
void __tsan_mutex_post_unlock (void *addr, unsigned flags);
void __tsan_acquire (void *addr);
void __tsan_release (void *addr);

static const unsigned TRY_LOCK = 1 << 5;
static const unsigned TRY_LOCK_FAILED = 1 << 6;

#define REAL(name, type) \
  static __typeof__ (&name) real_##name; \
  if (!real_##name) real_##name = (__typeof__ (&name)) dlsym (RTLD_NEXT, #name)

void g_mutex_init (GMutex *m) {
  REAL (g_mutex_init, void (*)(GMutex *));
  real_g_mutex_init (m);
  __tsan_mutex_create (m, 0);
}
void g_mutex_clear (GMutex *m) {
  REAL (g_mutex_clear, void (*)(GMutex *));
  __tsan_mutex_destroy (m, 0);
  real_g_mutex_clear (m);
}
void g_mutex_lock (GMutex *m) {
  REAL (g_mutex_lock, void (*)(GMutex *));
  __tsan_mutex_pre_lock (m, 0);
  real_g_mutex_lock (m);
  __tsan_mutex_post_lock (m, 0, 0);
}
gboolean g_mutex_trylock (GMutex *m) {
  REAL (g_mutex_trylock, gboolean (*)(GMutex *));
  gboolean ok;
  __tsan_mutex_pre_lock (m, TRY_LOCK);
  ok = real_g_mutex_trylock (m);
  __tsan_mutex_post_lock (m, TRY_LOCK | (ok ? 0 : TRY_LOCK_FAILED), 0);
  return ok;
}
void g_mutex_unlock (GMutex *m) {
  REAL (g_mutex_unlock, void (*)(GMutex *));
  __tsan_mutex_pre_unlock (m, 0);
  real_g_mutex_unlock (m);
  __tsan_mutex_post_unlock (m, 0);
}
void g_cond_wait (GCond *c, GMutex *m) {
  REAL (g_cond_wait, void (*)(GCond *, GMutex *));
  __tsan_mutex_pre_unlock (m, 0);
  __tsan_mutex_post_unlock (m, 0);
  real_g_cond_wait (c, m);
  __tsan_mutex_pre_lock (m, 0);
  __tsan_mutex_post_lock (m, 0, 0);
}
gboolean g_cond_wait_until (GCond *c, GMutex *m, gint64 end) {
  REAL (g_cond_wait_until, gboolean (*)(GCond *, GMutex *, gint64));
  gboolean r;
  __tsan_mutex_pre_unlock (m, 0);
  __tsan_mutex_post_unlock (m, 0);
  r = real_g_cond_wait_until (c, m, end);
  __tsan_mutex_pre_lock (m, 0);
  __tsan_mutex_post_lock (m, 0, 0);
  return r;
}
/* GAsyncQueue (GstHarness's buffer and event queues): push releases, pop
 * acquires, on the queue's address. */
void g_async_queue_push (GAsyncQueue *q, gpointer d) {
  REAL (g_async_queue_push, void (*)(GAsyncQueue *, gpointer));
  __tsan_release (q);
  real_g_async_queue_push (q, d);
}
void g_async_queue_push_front (GAsyncQueue *q, gpointer d) {
  REAL (g_async_queue_push_front, void (*)(GAsyncQueue *, gpointer));
  __tsan_release (q);
  real_g_async_queue_push_front (q, d);
}
gpointer g_async_queue_pop (GAsyncQueue *q) {
  REAL (g_async_queue_pop, gpointer (*)(GAsyncQueue *));
  gpointer d = real_g_async_queue_pop (q);
  __tsan_acquire (q);
  return d;
}
gpointer g_async_queue_try_pop (GAsyncQueue *q) {
  REAL (g_async_queue_try_pop, gpointer (*)(GAsyncQueue *));
  gpointer d = real_g_async_queue_try_pop (q);
  __tsan_acquire (q);
  return d;
}
gpointer g_async_queue_timeout_pop (GAsyncQueue *q, guint64 t) {
  REAL (g_async_queue_timeout_pop, gpointer (*)(GAsyncQueue *, guint64));
  gpointer d = real_g_async_queue_timeout_pop (q, t);
  __tsan_acquire (q);
  return d;
}
