/* The journal a store gets by filesystem (lib/store/store_open.c): the rollback journal on network filesystems, by
 * statfs magic, and for FUSE (one magic for all) by the mount's type in /proc/self/mountinfo. The kernel's
 * network filesystems (NFS, CIFS, Lustre, ...) cannot be mounted where the tests run, so their detection is
 * tested here over the numbers and text the kernel gives; tests/e2e/test_journal_fuse.sh mounts a real FUSE
 * filesystem of a network type, and tests/e2e/test_plan.sh covers PASSMAP_JOURNAL. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "store.h"

static void magic_numbers(void **state)
{
    (void)state;
    const char *name = "x";
    /* NFS, SMB2, Lustre, GPFS, BeeGFS, CephFS */
    const unsigned long network[] = {0x6969, 0xFE534D42, 0x0BD00BD0, 0x47504653, 0x19830326, 0x00C36400};
    for (size_t i = 0; i < sizeof network / sizeof network[0]; i++) {
        assert_string_equal(pm_store_journal_for(network[i], NULL, &name), "DELETE");
        assert_non_null(name);
    }
    assert_string_equal(pm_store_journal_for(0x6969, NULL, &name), "DELETE");
    assert_string_equal(name, "NFS");
    /* ext4, xfs, btrfs, tmpfs, overlayfs */
    const unsigned long local[] = {0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0x794C7630};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        assert_string_equal(pm_store_journal_for(local[i], NULL, &name), "WAL");
        assert_null(name);
    }
}

/* FUSE: sshfs and the like are network filesystems; a local FUSE filesystem (or an unknown type) keeps WAL. */
static void fuse_by_mount_type(void **state)
{
    (void)state;
    const char *name = NULL;
    assert_string_equal(pm_store_journal_for(0x65735546, "fuse.sshfs", &name), "DELETE");
    assert_string_equal(name, "sshfs");
    assert_string_equal(pm_store_journal_for(0x65735546, "fuse.rclone", NULL), "DELETE");
    assert_string_equal(pm_store_journal_for(0x65735546, "fuse.bindfs", &name), "WAL");
    assert_null(name);
    assert_string_equal(pm_store_journal_for(0x65735546, "fuse", NULL), "WAL");
    assert_string_equal(pm_store_journal_for(0x65735546, NULL, NULL), "WAL");
    /* the type decides only for FUSE's magic */
    assert_string_equal(pm_store_journal_for(0xEF53, "fuse.sshfs", NULL), "WAL");
}

/* A mountinfo as the kernel writes it (optional fields before " - "). */
static void mount_type_by_device(void **state)
{
    (void)state;
    const char *info =
        "22 1 259:1 / / rw,relatime shared:1 - ext4 /dev/vda rw\n"
        "36 22 0:45 / /mnt/lab rw,nosuid,nodev,relatime shared:20 master:3 - fuse.sshfs me@lab1:/data rw,user_id=0\n"
        "40 22 0:52 / /scratch rw,relatime - nfs4 lab1:/scratch rw,vers=4.2\n";
    char t[64];
    assert_int_equal(pm_store_mount_type(info, 0, 45, t, sizeof t), 0);
    assert_string_equal(t, "fuse.sshfs");
    assert_int_equal(pm_store_mount_type(info, 259, 1, t, sizeof t), 0);
    assert_string_equal(t, "ext4");
    assert_int_equal(pm_store_mount_type(info, 0, 52, t, sizeof t), 0);
    assert_string_equal(t, "nfs4");
    assert_int_equal(pm_store_mount_type(info, 0, 99, t, sizeof t), -1);
    char small[4];
    assert_int_equal(pm_store_mount_type(info, 0, 45, small, sizeof small), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(magic_numbers),
        cmocka_unit_test(fuse_by_mount_type),
        cmocka_unit_test(mount_type_by_device),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
