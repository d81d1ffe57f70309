{
  "targets": [
    {
      "target_name": "airlock_native",
      "sources": ["airlock_native.c"],
      "cflags": ["-Wall", "-Wextra", "-O2", "-fstack-protector-strong", "-D_FORTIFY_SOURCE=2"]
    }
  ]
}
