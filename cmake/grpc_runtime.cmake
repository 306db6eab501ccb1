# grpc_runtime: gRPC and Protobuf as an executable links them. By default Debian's shared
# libraries. An executable with the property PERFHIVE_STATIC_GRPC set links their static
# archives instead (as pkg-config --static lists them), keeping OpenSSL, zlib and the C and C++
# runtimes shared: it then loads 10 shared objects instead of 58. The perfhive CLI, which starts
# for every command, does so (docs/capacity.md: its start from 11 ms to 4 ms); the long-running
# server and agent stay on the shared libraries, which Debian's security updates reach.
# Where the archives are missing (or in the Windows build, static already) the property changes
# nothing.
if(TARGET grpc_runtime)
  return()
endif()
add_library(grpc_runtime INTERFACE)
set(shared_grpc gRPC::grpc++ protobuf::libprotobuf)
set(static_grpc "")
if(NOT WIN32)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(GRPC_ARCHIVES QUIET grpc++ protobuf)
  endif()
  find_library(GRPCXX_ARCHIVE NAMES libgrpc++.a)
  if(GRPC_ARCHIVES_FOUND AND GRPCXX_ARCHIVE)
    set(archives ${GRPC_ARCHIVES_STATIC_LIBRARIES})
    list(REMOVE_DUPLICATES archives)
    set(kept_shared ssl crypto z dl rt m pthread atomic)
    set(static_grpc "-Wl,-Bstatic" "-Wl,--start-group")
    set(shared_after "")
    foreach(library IN LISTS archives)
      if(library IN_LIST kept_shared)
        list(APPEND shared_after "-l${library}")
      else()
        list(APPEND static_grpc "-l${library}")
      endif()
    endforeach()
    list(APPEND static_grpc "-Wl,--end-group" "-Wl,-Bdynamic" ${shared_after} "-pthread")
  endif()
endif()
if(static_grpc)
  set(use_static "$<BOOL:$<TARGET_PROPERTY:PERFHIVE_STATIC_GRPC>>")
  target_link_libraries(grpc_runtime INTERFACE "$<${use_static}:${static_grpc}>"
                                               "$<$<NOT:${use_static}>:${shared_grpc}>")
else()
  target_link_libraries(grpc_runtime INTERFACE ${shared_grpc})
endif()
