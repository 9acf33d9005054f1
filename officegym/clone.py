"""File copies that cost nothing where the filesystem can share blocks.

On XFS (with reflink, the default since xfsprogs 5.1), btrfs, bcachefs and other copy-on-write
filesystems, `FICLONE` makes a new file that shares every block of the old one: instant, whatever
the size, and the copy takes disk space only for the blocks it later changes. Elsewhere (ext4,
tmpfs, overlayfs on ext4) the ioctl is refused and the file is copied byte for byte.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
from pathlib import Path

FICLONE = 0x40049409  # _IOW(0x94, 9, int) from linux/fs.h
# The errors meaning "this filesystem (or this pair of files) cannot share blocks".
NOT_CLONABLE = {errno.EOPNOTSUPP, errno.ENOTTY, errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EPERM}


def clone_file(source: Path, target: Path) -> bool:
    """Copy `source` to `target` (replacing it): a reflink where the filesystem allows, else a full
    copy. True when the copy shares its blocks with the source."""
    with open(source, "rb") as src, open(target, "wb") as dst:
        try:
            fcntl.ioctl(dst.fileno(), FICLONE, src.fileno())
            return True
        except OSError as error:
            if error.errno not in NOT_CLONABLE:
                raise
    shutil.copyfile(source, target)  # in the kernel (sendfile), without a trip through Python
    return False


def can_clone(folder: Path) -> bool:
    """Whether files in `folder` can be cloned (tried on a small scratch file)."""
    probe, copy = folder / f".clone-probe-{os.getpid()}", folder / f".clone-probe-{os.getpid()}.copy"
    try:
        probe.write_bytes(b"officegym")
        return clone_file(probe, copy)
    finally:
        probe.unlink(missing_ok=True)
        copy.unlink(missing_ok=True)
