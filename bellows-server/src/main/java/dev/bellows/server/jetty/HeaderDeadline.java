package dev.bellows.server.jetty;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Closes a connection whose request head does not arrive in time: within the deadline of its
 * opening, or of the end of its previous response once it has begun sending a new head. The
 * idle timeout alone cannot do it: a client that sends one header line every few seconds is
 * never idle, and thousands of them would hold every file descriptor. A keep-alive connection
 * that sends nothing after a response is left to the idle timeout.
 */
final class HeaderDeadline implements Connection.Listener {

    private final Scheduler scheduler;
    private final long millis;
    private final Map<Connection, Watch> watches = new ConcurrentHashMap<>();

    HeaderDeadline(Scheduler scheduler, Duration deadline) {
        this.scheduler = scheduler;
        this.millis = deadline.toMillis();
    }

    @Override
    public void onOpened(Connection connection) {
        Watch watch = new Watch(connection);
        watches.put(connection, watch);
        watch.arm(true);
    }

    @Override
    public void onClosed(Connection connection) {
        Watch watch = watches.remove(connection);
        if (watch != null) {
            watch.disarm();
        }
    }

    /** A request's head arrived on the connection: no deadline while it is served. */
    void headArrived(Connection connection) {
        Watch watch = watches.get(connection);
        if (watch != null) {
            watch.headArrived();
        }
    }

    /** A request of the connection was answered: the next head has the deadline again. */
    void answered(Connection connection) {
        Watch watch = watches.get(connection);
        if (watch != null) {
            watch.answered();
        }
    }

    /** One connection's heads and its deadline's timer. */
    private final class Watch {
        private final Connection connection;
        private int serving;
        private long heads;
        private Scheduler.Task timer;

        Watch(Connection connection) {
            this.connection = connection;
        }

        synchronized void arm(boolean fresh) {
            long headsThen = heads;
            long bytesThen = connection.getBytesIn();
            timer = scheduler.schedule(() -> expire(fresh, headsThen, bytesThen), millis, TimeUnit.MILLISECONDS);
        }

        synchronized void disarm() {
            if (timer != null) {
                timer.cancel();
                timer = null;
            }
        }

        synchronized void headArrived() {
            serving++;
            heads++;
            disarm();
        }

        synchronized void answered() {
            serving--;
            if (serving == 0) {
                arm(false);
            }
        }

        private void expire(boolean fresh, long headsThen, long bytesThen) {
            synchronized (this) {
                timer = null;
                if (serving > 0 || heads != headsThen) {
                    return;
                }
                if (!fresh && connection.getBytesIn() == bytesThen) {
                    arm(false);     // an idle keep-alive connection: the idle timeout's to end
                    return;
                }
            }
            connection.getEndPoint().close();
        }
    }
}
