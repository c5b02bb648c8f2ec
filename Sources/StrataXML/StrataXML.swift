internal import Foundation
internal import CLibXML2

func strataLibXML2Version() -> Int32 { LIBXML_VERSION }
