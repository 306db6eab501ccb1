# Debian's hardening flags, as dpkg-buildflags gives them on Debian 12 amd64 with
# DEB_BUILD_MAINT_OPTIONS=hardening=+all: stack protector, fortified libc calls, format string
# checks, read-only relocations bound at start. The Debian packages are made from this build
# (packaging/debian), so the programs the tests run are the ones shipped. Included from the
# top-level CMakeLists.txt before any target, so every target has them. Left out of sanitizer
# and fuzzing builds, where the sanitizers check more (and FORTIFY gets in their way).

if(NOT PERFHIVE_SANITIZE AND NOT PERFHIVE_FUZZ AND NOT MSVC)
  add_compile_options(-fstack-protector-strong -Wformat -Werror=format-security -Wdate-time)
  add_link_options(-Wl,-z,relro -Wl,-z,now)
  # FORTIFY needs the optimiser, so not in Debug builds; nor in tests/, which ships nothing and
  # may ignore results glibc's fortified declarations want used (a test dup()s descriptors only
  # to have them open).
  set(in_tests "$<PATH:IS_PREFIX,${PROJECT_SOURCE_DIR}/tests,$<TARGET_PROPERTY:SOURCE_DIR>>")
  add_compile_definitions("$<$<AND:$<NOT:$<CONFIG:Debug>>,$<NOT:${in_tests}>>:_FORTIFY_SOURCE=2>")
  unset(in_tests)
endif()
