# Where everything is installed, and the paths the programs compile in,
# decided here once from the same variables (GNUInstallDirs): the unit,
# tmpfiles.d and buildinfo.h are generated from them, so that what runs
# is what was installed, whatever the prefix.  The prefix is the one given
# at configure time (cmake -DCMAKE_INSTALL_PREFIX=...), not the one of
# `cmake --install --prefix`: the paths are compiled in by then.
#
# State and run time go to /var and /run whatever the prefix: the FHS has
# no /usr/local/var, systemd's StateDirectory= and RuntimeDirectory= exist
# only under /var/lib and /run, and a socket in a persistent directory
# outlives a reboot.  Give CMAKE_INSTALL_LOCALSTATEDIR or
# CMAKE_INSTALL_RUNSTATEDIR to choose others.  The configuration follows
# the prefix: /etc for /usr, /usr/local/etc for /usr/local.
set(CMAKE_INSTALL_LOCALSTATEDIR /var CACHE PATH
	"Read-write single-machine data (trashd's index in lib/trashd)")
set(CMAKE_INSTALL_RUNSTATEDIR /run CACHE PATH
	"Run-time variable data (trashd's socket in trashd/)")
include(GNUInstallDirs)
find_package(PkgConfig REQUIRED)

set(TRASHD_CONF ${CMAKE_INSTALL_FULL_SYSCONFDIR}/trashd/trashd.conf)
set(TRASHD_STATEDIR ${CMAKE_INSTALL_FULL_LOCALSTATEDIR}/lib/trashd)
set(TRASHD_DB ${TRASHD_STATEDIR}/index.db)
set(TRASHD_RUNDIR ${CMAKE_INSTALL_FULL_RUNSTATEDIR}/trashd)
set(TRASHD_SOCKET ${TRASHD_RUNDIR}/trashd.sock)
set(TRASHD_BIN ${CMAKE_INSTALL_FULL_SBINDIR}/trashd)

# systemd's directories: its own for a /usr prefix (Debian 12 keeps units
# in /lib/systemd/system), under the prefix otherwise, where systemd looks
# too (/usr/local/lib/systemd/system, .../tmpfiles.d, .../sysusers.d).
# Not cached, so that a new prefix moves them; set them with -D to choose.
pkg_check_modules(SYSTEMD QUIET systemd)
foreach(v unitdir:systemdsystemunitdir:systemd/system
    tmpfilesdir:tmpfilesdir:tmpfiles.d sysusersdir:sysusersdir:sysusers.d)
	string(REPLACE ":" ";" v ${v})
	list(GET v 0 name)
	list(GET v 1 pcvar)
	list(GET v 2 sub)
	string(TOUPPER TRASHBIN_${name} var)
	if(DEFINED ${var})
		continue()
	endif()
	set(${var} ${CMAKE_INSTALL_PREFIX}/lib/${sub})
	if(CMAKE_INSTALL_PREFIX STREQUAL "/usr" AND SYSTEMD_FOUND)
		pkg_get_variable(pcval systemd ${pcvar})
		if(pcval)
			set(${var} ${pcval})
		endif()
	endif()
endforeach()

# PAM loads modules from its own directory only, whatever our prefix:
# libpam's libdir/security (Debian 12: /lib/x86_64-linux-gnu/security,
# the same directory as /usr/lib/x86_64-linux-gnu/security on its merged
# /usr).
if(NOT DEFINED TRASHBIN_PAMDIR)
	pkg_check_modules(PAM QUIET pam)
	if(PAM_FOUND)
		pkg_get_variable(pam_libdir pam libdir)
	endif()
	if(NOT pam_libdir)
		set(pam_libdir /lib/${CMAKE_LIBRARY_ARCHITECTURE})
	endif()
	set(TRASHBIN_PAMDIR ${pam_libdir}/security)
endif()

# Bash completion: bash-completion's directory for the prefix.
set(TRASHBIN_COMPLETIONDIR
	${CMAKE_INSTALL_FULL_DATADIR}/bash-completion/completions)

# The unit lets systemd make /var/lib/trashd and /run/trashd where they
# are there; elsewhere tmpfiles.d makes them (systemd-tmpfiles --create).
set(TRASHD_UNIT_DIRS "")
if(TRASHD_STATEDIR MATCHES "^/var/lib/(.+)$")
	string(APPEND TRASHD_UNIT_DIRS
		"StateDirectory=${CMAKE_MATCH_1}\nStateDirectoryMode=0700\n")
endif()
if(TRASHD_RUNDIR MATCHES "^/run/(.+)$")
	string(APPEND TRASHD_UNIT_DIRS
		"RuntimeDirectory=${CMAKE_MATCH_1}\nRuntimeDirectoryMode=0755\n")
endif()

set(TRASHBIN_GEN_DIR ${CMAKE_BINARY_DIR}/gen)
configure_file(${CMAKE_CURRENT_LIST_DIR}/buildinfo.h.in
	${TRASHBIN_GEN_DIR}/buildinfo.h @ONLY)
# Every target may include it: trashd, trashctl, the PAM module, common/.
include_directories(${TRASHBIN_GEN_DIR})
message(STATUS "trashbin: ${TRASHD_BIN}, config ${TRASHD_CONF}, "
	"index ${TRASHD_DB}, socket ${TRASHD_SOCKET}, unit in "
	"${TRASHBIN_UNITDIR}, PAM module in ${TRASHBIN_PAMDIR}")
