package dev.bellows.eval.report;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One part of a report file while the runs go (the cases' entries of {@code report.json}, the
 * page's rows, ...): its bytes held in memory while the report's {@link Budget} lasts, then in a
 * hidden file beside the report, what was held written there first. So a report of a few
 * thousand cases is written once, from memory, into its file when the evaluation finishes, not
 * written to a part file as the runs go and copied from it after the last run (which the
 * evaluation's caller waited for); a larger one holds no more than the budget in memory.
 * Not thread-safe: written by the report's one writer, then {@link #copyTo} by one thread.
 */
final class Part extends OutputStream {

    /** The bytes every part of one report may still hold in memory together. Not thread-safe, as the parts. */
    static final class Budget {
        private long left;

        Budget(long bytes) {
            this.left = bytes;
        }
    }

    /** Where a part goes once it leaves memory: a new hidden file. */
    interface Spill {
        Path create() throws IOException;
    }

    private static final int FIRST_BLOCK = 8 * 1024;
    private static final int LARGEST_BLOCK = 1 << 20;
    private static final int FILE_BUFFER = 1 << 16;

    private final Budget budget;
    private final Spill spill;
    /** The bytes held, in blocks that double in size up to a mebibyte (no copying as they grow); the last one filled to {@link #used}. */
    private final List<byte[]> blocks = new ArrayList<>();
    private int used;
    private long held;
    private Path file;
    private OutputStream toFile;

    Part(Budget budget, Spill spill) {
        this.budget = budget;
        this.spill = spill;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        java.util.Objects.checkFromIndexSize(offset, length, bytes.length);
        if (toFile == null && budget.left < length) {
            spill();
        }
        if (toFile != null) {
            toFile.write(bytes, offset, length);
            return;
        }
        budget.left -= length;
        held += length;
        while (length > 0) {
            byte[] last = blocks.isEmpty() ? null : blocks.getLast();
            if (last == null || used == last.length) {
                last = new byte[last == null ? FIRST_BLOCK : Math.min(LARGEST_BLOCK, last.length * 2)];
                blocks.add(last);
                used = 0;
            }
            int n = Math.min(length, last.length - used);
            System.arraycopy(bytes, offset, last, used, n);
            used += n;
            offset += n;
            length -= n;
        }
    }

    /** From here on the part is written to its file, the bytes held so far first; their room goes back to the budget. */
    private void spill() throws IOException {
        file = spill.create();
        toFile = new BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.TRUNCATE_EXISTING), FILE_BUFFER);
        for (int i = 0; i < blocks.size(); i++) {
            toFile.write(blocks.get(i), 0, i == blocks.size() - 1 ? used : blocks.get(i).length);
        }
        blocks.clear();
        budget.left += held;
        held = 0;
    }

    /**
     * Writes the part's bytes at {@code out}'s position: those held, in one gathering write; a
     * part in a file, copied from it by the kernel, the file deleted once copied. The part is
     * closed.
     */
    void copyTo(FileChannel out) throws IOException {
        if (toFile != null) {
            toFile.close();
            try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
                long size = in.size();
                for (long done = 0; done < size; ) {
                    done += in.transferTo(done, size - done, out);
                }
            }
            Files.delete(file);     // here, beside the other joins, not by the report's close after them
            return;
        }
        ByteBuffer[] buffers = new ByteBuffer[blocks.size()];
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = ByteBuffer.wrap(blocks.get(i), 0, i == buffers.length - 1 ? used : blocks.get(i).length);
        }
        for (long left = held; left > 0; ) {
            left -= out.write(buffers);
        }
        blocks.clear();
    }

    /** Whether the part went to a file (tests). */
    boolean spilled() {
        return toFile != null;
    }

    /** Lets go of the bytes held and closes the part's file, if any (which the report deletes). */
    @Override
    public void close() throws IOException {
        blocks.clear();
        if (toFile != null) {
            toFile.close();
        }
    }
}
