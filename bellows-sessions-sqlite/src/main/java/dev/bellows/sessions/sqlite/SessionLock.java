package dev.bellows.sessions.sqlite;

import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.SessionStoreException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;

/**
 * One user per session: an exclusive OS file lock on {@code locks/NAME.lock} beside the
 * database. The operating system releases it when the process ends however it ends (kill -9
 * included), so a crash never leaves a stale lock to clean up, and no heartbeat thread is
 * needed; a lock row in the database would need both. The file holds the owner's pid, for
 * the message the next user sees. The lock file is created owner-only and never opened through
 * a symbolic link (a link planted in its place is an error, not a write to its target). Lock files are never deleted: deleting one while another
 * process is about to lock it would let two processes each lock a different file.
 */
final class SessionLock implements AutoCloseable {

    private final FileChannel channel;
    private final FileLock lock;

    private SessionLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the session's lock, or fails at once.
     *
     * @throws SessionInUseException when another process, or another handle in this JVM, holds it
     */
    static SessionLock acquire(Path directory, String name) {
        Path file = directory.resolve("locks").resolve(name + ".lock");
        FileChannel channel = null;
        try {
            PrivateFiles.createDirectory(file.getParent());
            PrivateFiles.refuseLink(file);
            // NOFOLLOW_LINKS: a link planted after the check is refused by the open itself.
            channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), PrivateFiles.attributes(PrivateFiles.FILE_MODE));
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
                channel.close();
                throw new SessionInUseException("session \"" + name + "\" is already open in this process;"
                        + " close it before opening it again");
            }
            if (lock == null) {
                String owner = owner(channel);
                channel.close();
                throw new SessionInUseException("session \"" + name + "\" is open in another process" + owner
                        + "; close that one first (its lock: " + file + ")");
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            return new SessionLock(channel, lock);
        } catch (IOException e) {
            closeQuietly(channel);
            throw new SessionStoreException("cannot lock session \"" + name + "\" (" + file + "): " + e.getMessage(), e);
        }
    }

    private static String owner(FileChannel channel) {
        try {
            ByteBuffer buffer = ByteBuffer.allocate(32);
            channel.read(buffer, 0);
            String pid = new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII).strip();
            return pid.matches("\\d{1,19}") ? " (pid " + pid + ")" : "";
        } catch (IOException e) {
            return "";
        }
    }

    private static void closeQuietly(FileChannel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // already failing; the first error is the one to report
            }
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException ignored) {
            // closing the channel releases it too
        } finally {
            closeQuietly(channel);
        }
    }
}
