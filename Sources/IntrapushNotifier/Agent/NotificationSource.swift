#if canImport(Glibc)
import Glibc
#endif
import IntrapushInterface
import IntrapushStore

/// The database as the agent sees it: opened when it exists, opened again when a daemon that
/// started later may have written what an immutable view cannot see, and read for unread rows.
final class NotificationSource {
    enum Trouble: Equatable {
        /// No file, or no tables yet: a daemon will make them.
        case notYet
        /// This user may not read it: only an administrator can change that.
        case notPermitted(String)
        /// Anything else, in words; looked at again on the next change.
        case unusable(String)
    }

    let path: String
    let recipients: RecipientFilter?
    private var reader: DatabaseReader?

    init(path: String, recipients: RecipientFilter?) {
        self.path = path
        self.recipients = recipients
    }

    /// Opens the file unless open (and current); what stands in the way otherwise.
    func prepare() -> Trouble? {
        if let reader, !reader.isImmutable { return nil }
        reader = nil
        if access(path, R_OK) != 0 {
            switch errno {
            case ENOENT: return .notYet
            case EACCES, EPERM: return .notPermitted("you may not read \(path)")
            default: return .unusable("cannot read \(path): \(String(cString: strerror(errno)))")
            }
        }
        do {
            reader = try DatabaseReader(path: path)
            return nil
        } catch is UninitializedDatabaseError {
            return .notYet
        } catch let error as DatabaseError where error.isCannotOpen {
            // The directory refuses the -shm file a reader needs, or the file vanished meanwhile.
            return access(path, F_OK) == 0 ? .notPermitted("you may not open \(path) while intrapushd runs") : .notYet
        } catch {
            return .unusable("cannot read \(path): \(error)")
        }
    }

    /// The unread notifications after `cursor`: the newest `catchUp` and the count of the rest.
    /// A cursor beyond the last id means the file was made anew: everything in it is after.
    func unread(after cursor: Int64, catchUp: Int) throws -> UnreadBatch {
        guard let reader else { return UnreadBatch(newest: [], summarized: 0, through: cursor) }
        let latest = try reader.latestID()
        let start = latest < cursor ? 0 : cursor
        guard latest > start else { return UnreadBatch(newest: [], summarized: 0, through: latest) }
        let (records, count) = try reader.unread(in: (start + 1)...latest, newest: catchUp, recipients: recipients)
        return UnreadBatch(newest: records, summarized: count - Int64(records.count), through: latest)
    }

    /// Forgets the open file, so that the next `prepare` opens it again (after a failed read).
    func close() {
        reader = nil
    }
}
