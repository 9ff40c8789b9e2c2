# SPDX-License-Identifier: MIT
"""Closable: the with-block and garbage-collection halves of an object
that owns libqpu resources and frees them in its close()."""


class Closable:
    """close() when a with block ends and when the object is collected."""

    def close(self):
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()
